// The signed-in person's second factors (the authenticator app and recovery codes), the second
// step of signing in, and a workspace's requirement (openapi/dashboard.yaml, Second factors).
import { api, inWorkspace } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { CodeMethod, Session, SignInAnswer } from './types.ts';
import { type Answer, type OnWrite, useWrite } from './writes.ts';

/** The proof a change to the factors asks for: the password or a code of the app. */
export type Proof = { password: string } | { code: string };

const factorsApi = {
  verify: (method: CodeMethod, code: string) => unwrap(api.POST('/session/second-factor', { body: { method, code } })),
  start: () => unwrap(api.POST('/account/second-factor/totp')),
  confirm: (code: string) => unwrap(api.POST('/account/second-factor/totp/confirm', { body: { code } })),
  disable: (proof: Proof) => unwrap(api.POST('/account/second-factor/totp/disable', { body: proof })),
  regenerate: (proof: Proof) => unwrap(api.POST('/account/second-factor/recovery-codes', { body: proof })),
  setRequirement: (ws: string, requireSecondFactor: boolean) =>
    unwrap(
      api.PUT('/workspaces/{workspaceId}/second-factor-requirement', {
        ...inWorkspace(ws),
        body: { requireSecondFactor },
      }),
    ),
};

/** The answer of a password step: the session, or the second step it asks for. */
export const secondStepOf = (answer: SignInAnswer) => ('secondFactor' in answer && !('user' in answer) ? answer : null);
export const isSession = (answer: SignInAnswer): answer is Session => 'user' in answer;

export const useSecondFactor = () => useDataQuery(keys.secondFactor, () => api.GET('/account/second-factor'));

/** The second step of signing in: the session it starts is put in place before `onSuccess`. */
export const useVerifySecondFactor = (on: OnWrite<Session, { method: CodeMethod; code: string }>) =>
  useWrite(
    ({ method, code }: { method: CodeMethod; code: string }) => factorsApi.verify(method, code),
    (session) => queryClient.setQueryData(keys.session, session),
    on,
  );

/**
 * What the factors' changes make stale. Not the session: a restricted session read again would
 * leave the enrolment screen before its recovery codes are saved; the screens read it again
 * once they are put away.
 */
const FACTOR_KEYS = [keys.secondFactor] as const;

export const useStartTotp = (on: OnWrite<Answer<typeof factorsApi.start>, void>) =>
  useWrite(() => factorsApi.start(), null, on);

export const useConfirmTotp = (on: OnWrite<Answer<typeof factorsApi.confirm>, string>) =>
  useWrite((code: string) => factorsApi.confirm(code), FACTOR_KEYS, on);

export const useDisableTotp = (on: OnWrite<unknown, Proof>) =>
  useWrite((proof: Proof) => factorsApi.disable(proof), FACTOR_KEYS, on);

export const useRegenerateRecoveryCodes = (on: OnWrite<Answer<typeof factorsApi.regenerate>, Proof>) =>
  useWrite((proof: Proof) => factorsApi.regenerate(proof), [keys.secondFactor], on);

export const useSecondFactorRequirement = (ws: string) =>
  useDataQuery(keys.secondFactorRequirement(ws), () =>
    api.GET('/workspaces/{workspaceId}/second-factor-requirement', inWorkspace(ws)),
  );

export const useSetSecondFactorRequirement = (
  ws: string,
  on: OnWrite<Answer<typeof factorsApi.setRequirement>, boolean>,
) =>
  useWrite(
    (required: boolean) => factorsApi.setRequirement(ws, required),
    (answer) => queryClient.setQueryData(keys.secondFactorRequirement(ws), answer.data),
    on,
  );
