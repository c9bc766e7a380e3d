// Members and invitations of a workspace.
import { useMutation } from '@tanstack/react-query';
import { api, inWorkspace } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { Invitation, Member, Role } from './types.ts';
import { type Answer, type OnWrite, useWrite } from './writes.ts';

export const useMembers = (ws: string) =>
  useDataQuery(keys.members(ws), () => api.GET('/workspaces/{workspaceId}/members', inWorkspace(ws)));

export const useInvitations = (ws: string) =>
  useDataQuery(keys.invitations(ws), () => api.GET('/workspaces/{workspaceId}/invitations', inWorkspace(ws)));

const membersApi = {
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

type NewInvitation = { email: string; role: Role };
type RoleChange = { member: Member; role: Role };

export const useInviteMember = (ws: string, on?: OnWrite<Answer<typeof membersApi.invite>, NewInvitation>) =>
  useWrite(({ email, role }: NewInvitation) => membersApi.invite(ws, email, role), [keys.invitations(ws)], on);

export const useRevokeInvitation = (ws: string, on?: OnWrite<Answer<typeof membersApi.revokeInvitation>, Invitation>) =>
  useWrite((invitation: Invitation) => membersApi.revokeInvitation(ws, invitation.id), [keys.invitations(ws)], on);

export const useRemoveMember = (ws: string, on?: OnWrite<Answer<typeof membersApi.remove>, Member>) =>
  useWrite((member: Member) => membersApi.remove(ws, member.userId), [keys.members(ws)], on);

/**
 * Changes a member's role. The list takes the answer in place; a refusal reloads it (the select
 * must show the role the member has); a change of the signed-in person's own role (`myId`) reloads
 * the session, whose role decides what the screens offer.
 */
export function useSetRole(
  ws: string,
  myId: string,
  on: OnWrite<Answer<typeof membersApi.changeRole>, RoleChange> & { onMutate?: (change: RoleChange) => void },
) {
  return useMutation<Answer<typeof membersApi.changeRole>, Error, RoleChange>({
    mutationFn: ({ member, role }) => membersApi.changeRole(ws, member.userId, role),
    onMutate: (change) => on.onMutate?.(change),
    onSuccess: (answer, change) => {
      queryClient.setQueryData<Member[]>(keys.members(ws), (list) =>
        list?.map((m) => (m.userId === change.member.userId ? answer.data : m)),
      );
      on.onSuccess?.(answer, change);
      if (answer.data.userId === myId) void queryClient.invalidateQueries({ queryKey: keys.session });
    },
    onError: (err, change) => {
      on.onError?.(err, change);
      void queryClient.invalidateQueries({ queryKey: keys.members(ws) });
    },
  });
}
