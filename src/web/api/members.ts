// Members and invitations of a workspace.
import { useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import type { Role } from './types.ts';

const inWorkspace = (workspaceId: string) => ({ params: { path: { workspaceId } } });

export function useMembers(ws: string) {
  return useQuery({
    queryKey: keys.members(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/members', inWorkspace(ws)))).data,
  });
}

export function useInvitations(ws: string) {
  return useQuery({
    queryKey: keys.invitations(ws),
    queryFn: async () => (await unwrap(api.GET('/workspaces/{workspaceId}/invitations', inWorkspace(ws)))).data,
  });
}

export const membersApi = {
  changeRole: (workspaceId: string, userId: string, role: Role) =>
    unwrap(
      api.PATCH('/workspaces/{workspaceId}/members/{userId}', {
        params: { path: { workspaceId, userId } },
        body: { role },
      }),
    ),
  remove: (workspaceId: string, userId: string) =>
    unwrap(api.DELETE('/workspaces/{workspaceId}/members/{userId}', { params: { path: { workspaceId, userId } } })),
  invite: (workspaceId: string, email: string, role: Role) =>
    unwrap(api.POST('/workspaces/{workspaceId}/invitations', { ...inWorkspace(workspaceId), body: { email, role } })),
  revokeInvitation: (workspaceId: string, invitationId: string) =>
    unwrap(
      api.DELETE('/workspaces/{workspaceId}/invitations/{invitationId}', {
        params: { path: { workspaceId, invitationId } },
      }),
    ),
};
