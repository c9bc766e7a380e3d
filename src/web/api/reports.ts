// Reports: a workspace's saved reports, and a shared report as its link's visitor reads it.
import { useQuery } from '@tanstack/react-query';
import type { paths } from '../../../generated/dashboard.ts';
import { api, inWorkspace } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { Report, ReportCreate } from './types.ts';
import { type OnWrite, useWrite } from './writes.ts';

type ReportPath = '/workspaces/{workspaceId}/reports/{reportId}';
export type ReportPatch = NonNullable<paths[ReportPath]['patch']['requestBody']>['content']['application/json'];

const oneReport = (workspaceId: string, reportId: string) => ({ params: { path: { workspaceId, reportId } } });

export const useReports = (ws: string) =>
  useDataQuery(keys.reports(ws), () => api.GET('/workspaces/{workspaceId}/reports', inWorkspace(ws)));

export function useSharedReport(token: string) {
  return useQuery({
    queryKey: keys.shared(token),
    queryFn: () => unwrap(api.GET('/shared/{token}', { params: { path: { token } } })),
    retry: false,
    // The service reuses figures for up to a minute; asking more often shows nothing new.
    staleTime: 60_000,
  });
}

const reportsApi = {
  create: (workspaceId: string, body: ReportCreate) =>
    unwrap(api.POST('/workspaces/{workspaceId}/reports', { ...inWorkspace(workspaceId), body })),
  update: (workspaceId: string, reportId: string, body: ReportPatch) =>
    unwrap(api.PATCH('/workspaces/{workspaceId}/reports/{reportId}', { ...oneReport(workspaceId, reportId), body })),
  renewLink: (workspaceId: string, reportId: string) =>
    unwrap(api.POST('/workspaces/{workspaceId}/reports/{reportId}/token', oneReport(workspaceId, reportId))),
  remove: (workspaceId: string, reportId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/reports/{reportId}', oneReport(workspaceId, reportId))),
  unlockShared: (token: string, password: string) =>
    unwrap(api.POST('/shared/{token}/unlock', { params: { path: { token } }, body: { password } })),
};

type Answer<K extends keyof typeof reportsApi> = Awaited<ReturnType<(typeof reportsApi)[K]>>;

// The list takes the answer at once, in the same render as the screen's notice: refetched only, a
// deleted report's card stood beside "deleted" (and a renewed one showed its old address) until
// the list came back.
function changeList(ws: string, update: (rows: Report[]) => Report[]) {
  queryClient.setQueryData<Report[]>(keys.reports(ws), (rows) => rows && update(rows));
  void queryClient.invalidateQueries({ queryKey: keys.reports(ws) });
}
const replacedBy = (saved: Report) => (rows: Report[]) => rows.map((r) => (r.id === saved.id ? saved : r));

export const useCreateReport = (ws: string, callbacks?: OnWrite<Answer<'create'>, ReportCreate>) =>
  useWrite(
    (body: ReportCreate) => reportsApi.create(ws, body),
    () => void queryClient.invalidateQueries({ queryKey: keys.reports(ws) }),
    callbacks,
  );

/** A change to a saved report; the screen may carry more in the variables (what to say once done). */
export const useUpdateReport = <V extends { report: Report; body: ReportPatch }>(
  ws: string,
  callbacks?: OnWrite<Answer<'update'>, V>,
) =>
  useWrite(
    ({ report, body }: V) => reportsApi.update(ws, report.id, body),
    (answer) => changeList(ws, replacedBy(answer.data)),
    callbacks,
  );

/** A new link for a report; the old one stops working. */
export const useRenewReportLink = (ws: string, callbacks?: OnWrite<Answer<'renewLink'>, Report>) =>
  useWrite(
    (report: Report) => reportsApi.renewLink(ws, report.id),
    (answer) => changeList(ws, replacedBy(answer.data)),
    callbacks,
  );

export const useDeleteReport = (ws: string, callbacks?: OnWrite<Answer<'remove'>, Report>) =>
  useWrite(
    (report: Report) => reportsApi.remove(ws, report.id),
    (_answer, report) => changeList(ws, (rows) => rows.filter((r) => r.id !== report.id)),
    callbacks,
  );

/** A shared report's password, from its visitor; nothing cached changes. */
export const useUnlockSharedReport = (token: string, callbacks?: OnWrite<Answer<'unlockShared'>, string>) =>
  useWrite((password: string) => reportsApi.unlockShared(token, password), null, callbacks);
