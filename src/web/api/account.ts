// Signing in and out, passwords, the first run and invitations: the requests of the screens a
// person uses before (or while) joining a workspace.
import { useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { unwrap } from './errors.ts';

/** What a first-run link allows (checked once: the token does not change under the screen). */
export function useFirstRun(token: string) {
  return useQuery({
    queryKey: ['first-run', token],
    queryFn: () => unwrap(api.GET('/first-run', { params: { query: { token } } })),
    enabled: token.length > 0,
    staleTime: Infinity,
  });
}

/** The invitation an invite link names. */
export function useInvitation(token: string) {
  return useQuery({
    queryKey: ['invitation', token],
    queryFn: async () => (await unwrap(api.GET('/invitation', { params: { query: { token } } }))).data,
    enabled: token.length > 0,
    staleTime: Infinity,
    retry: false,
  });
}

export const accountApi = {
  signIn: (email: string, password: string) => unwrap(api.POST('/session', { body: { email, password } })),
  signOut: () => unwrap(api.DELETE('/session')),
  changePassword: (currentPassword: string, newPassword: string) =>
    unwrap(api.POST('/password', { body: { currentPassword, newPassword } })),
  setUpPassword: (token: string, password: string) =>
    unwrap(api.POST('/password-setup', { body: { token, password } })),
  firstRun: (body: { token: string; workspaceName: string; email: string; password: string }) =>
    unwrap(api.POST('/first-run', { body })),
  acceptInvitation: (token: string) => unwrap(api.POST('/invitation/accept', { body: { token } })),
  register: (token: string, password: string) =>
    unwrap(api.POST('/invitation/register', { body: { token, password } })),
};
