// Reports: a workspace's saved reports, and a shared report as its link's visitor reads it.
import { useQuery } from '@tanstack/react-query';
import type { paths } from '../../../generated/dashboard.ts';
import { api } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import type { ReportCreate } from './types.ts';

type ReportPath = '/workspaces/{workspaceId}/reports/{reportId}';
export type ReportPatch = NonNullable<paths[ReportPath]['patch']['requestBody']>['content']['application/json'];

const oneReport = (workspaceId: string, reportId: string) => ({ params: { path: { workspaceId, reportId } } });

export function useReports(ws: string) {
  return useQuery({
    queryKey: keys.reports(ws),
    queryFn: async () =>
      (await unwrap(api.GET('/workspaces/{workspaceId}/reports', { params: { path: { workspaceId: ws } } }))).data,
  });
}

export function useSharedReport(token: string) {
  return useQuery({
    queryKey: keys.shared(token),
    queryFn: () => unwrap(api.GET('/shared/{token}', { params: { path: { token } } })),
    retry: false,
    // The service reuses figures for up to a minute; asking more often shows nothing new.
    staleTime: 60_000,
  });
}

export const reportsApi = {
  create: (workspaceId: string, body: ReportCreate) =>
    unwrap(api.POST('/workspaces/{workspaceId}/reports', { params: { path: { workspaceId } }, body })),
  update: (workspaceId: string, reportId: string, body: ReportPatch) =>
    unwrap(api.PATCH('/workspaces/{workspaceId}/reports/{reportId}', { ...oneReport(workspaceId, reportId), body })),
  renewLink: (workspaceId: string, reportId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/reports/{reportId}/token', oneReport(workspaceId, reportId))),
  remove: (workspaceId: string, reportId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/reports/{reportId}', oneReport(workspaceId, reportId))),
  unlockShared: (token: string, password: string) =>
    unwrap(api.POST('/shared/{token}/unlock', { params: { path: { token } }, body: { password } })),
};
