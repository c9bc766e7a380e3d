// The signed-in person's own sessions (Account), and "forgot password" on the sign-in screens.
import { useQuery } from '@tanstack/react-query';
import { api } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import type { components } from '../../../generated/dashboard.ts';
import { type Answer, type OnWrite, useWrite } from './writes.ts';

export type OwnSession = components['schemas']['SignedInSession'];

export const useOwnSessions = () => useDataQuery(keys.ownSessions, () => api.GET('/sessions'));

const sessionsApi = {
  end: (sessionId: string) => unwrap(api.DELETE('/sessions/{sessionId}', { params: { path: { sessionId } } })),
  endOthers: () => unwrap(api.DELETE('/sessions/others')),
  requestReset: (email: string) => unwrap(api.POST('/password-reset', { body: { email } })),
};

export const useEndSession = (on?: OnWrite<Answer<typeof sessionsApi.end>, OwnSession>) =>
  useWrite((s: OwnSession) => sessionsApi.end(s.id), [keys.ownSessions], on);

export const useEndOtherSessions = (on?: OnWrite<Answer<typeof sessionsApi.endOthers>, void>) =>
  useWrite(() => sessionsApi.endOthers(), [keys.ownSessions], on);

/** Whether this service mails reset links (asked once per visit: it is the deployment's setting). */
export const usePasswordResetByEmail = () =>
  useQuery({
    queryKey: keys.passwordReset,
    queryFn: () => unwrap(api.GET('/password-reset')),
    staleTime: Infinity,
  });

export const useRequestPasswordReset = (on?: OnWrite<Answer<typeof sessionsApi.requestReset>, string>) =>
  useWrite((email: string) => sessionsApi.requestReset(email), null, on);
