// Signing in and out, passwords, the first run and invitations: the requests of the screens a
// person uses before (or while) joining a workspace.
import { useMutation, useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import { ApiError } from './errors.ts';
import type { Session, SignInAnswer } from './types.ts';
import { type Answer, type OnWrite, useWrite } from './writes.ts';

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
  return useDataQuery(['invitation', token], () => api.GET('/invitation', { params: { query: { token } } }), {
    enabled: token.length > 0,
    staleTime: Infinity,
    retry: false,
  });
}

const accountApi = {
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

/**
 * A write that starts a session: the answer is the new session (with its anti-forgery token), put
 * in place before the screen's `onSuccess` moves on.
 */
function useSessionWrite<TVars>(request: (vars: TVars) => Promise<Session>, on: OnWrite<Session, TVars>) {
  return useWrite(request, (session) => queryClient.setQueryData(keys.session, session), on);
}

/**
 * A password step: the session is put in place when it is one; a person with a second factor
 * gets the second step's question instead (no session yet), for the screen to ask.
 */
function usePasswordStep<TVars>(request: (vars: TVars) => Promise<SignInAnswer>, on: OnWrite<SignInAnswer, TVars>) {
  return useWrite(
    request,
    (answer) => {
      if ('user' in answer) queryClient.setQueryData(keys.session, answer);
    },
    on,
  );
}

/** Nothing of the ended session stays cached; dropped once the screen has moved to where it leads. */
const forgetEverything = () => queueMicrotask(() => queryClient.removeQueries());

export const useSignIn = (on: OnWrite<SignInAnswer, { email: string; password: string }>) =>
  usePasswordStep(({ email, password }) => accountApi.signIn(email, password), on);

export const useSetUpPassword = (token: string, on: OnWrite<SignInAnswer, string>) =>
  usePasswordStep((password) => accountApi.setUpPassword(token, password), on);

type FirstRun = { workspaceName: string; email: string; password: string };
/** Claims a fresh installation: its first workspace and its owner. */
export const useClaimFirstRun = (token: string, on: OnWrite<Session, FirstRun>) =>
  useSessionWrite((values: FirstRun) => accountApi.firstRun({ token, ...values }), on);

/** Signs out; `then` moves the screen away, settled either way (signed out or already ended). */
export const useSignOut = (then: () => void) =>
  useMutation({
    mutationFn: () => accountApi.signOut(),
    onSettled: () => {
      then();
      forgetEverything();
    },
  });

/** Changes the password: the service ends every session of the person, this one too. */
export const useChangePassword = (on: OnWrite<unknown, { current: string; password: string }>) =>
  useMutation<unknown, Error, { current: string; password: string }>({
    mutationFn: ({ current, password }) => accountApi.changePassword(current, password),
    onSuccess: (answer, vars) => {
      on.onSuccess?.(answer, vars);
      forgetEverything();
    },
    onError: (err, vars) => on.onError?.(err, vars),
  });

/** Signs out of the wrong account on an invite link, so that the screen asks who is joining. */
export const useSignOutForInvitation = () =>
  useMutation({
    mutationFn: () => accountApi.signOut(),
    onSuccess: () => queryClient.resetQueries({ queryKey: keys.session }),
  });

/**
 * After joining a workspace the session lists it: the screen's `onSuccess` (opening the workspace)
 * runs once the session is read again.
 */
const joined =
  <TData, TVars>(on: OnWrite<TData, TVars>) =>
  async (data: TData, vars: TVars) => {
    await queryClient.invalidateQueries({ queryKey: keys.session });
    return on.onSuccess?.(data, vars);
  };

export const useAcceptInvitation = (token: string, on: OnWrite<Answer<typeof accountApi.acceptInvitation>, void>) =>
  useMutation<Answer<typeof accountApi.acceptInvitation>, Error, void>({
    mutationFn: () => accountApi.acceptInvitation(token),
    onSuccess: joined(on),
    onError: (err, vars) => on.onError?.(err, vars),
  });

/** Signs in as the invited person, then accepts with the new session's anti-forgery token. */
export const useSignInAndAccept = (
  token: string,
  email: string,
  on: OnWrite<Answer<typeof accountApi.acceptInvitation>, string>,
) =>
  useMutation<Answer<typeof accountApi.acceptInvitation>, Error, string>({
    mutationFn: async (password) => {
      const answer = await accountApi.signIn(email, password);
      // A second factor is asked on the sign-in screen, which comes back here after it.
      if (!('user' in answer))
        throw new ApiError(409, 'This account uses a second factor: sign in first, then open the invitation again.');
      queryClient.setQueryData(keys.session, answer);
      return accountApi.acceptInvitation(token);
    },
    onSuccess: joined(on),
    onError: (err, vars) => on.onError?.(err, vars),
  });

/** Creates the invited person's account, which belongs to the one workspace it joined. */
export const useRegister = (token: string, on: OnWrite<Session, string>) =>
  useSessionWrite((password: string) => accountApi.register(token, password), { ...on, onSuccess: joined(on) });
