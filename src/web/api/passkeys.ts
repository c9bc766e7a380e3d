// The signed-in person's passkeys and signing in with one (openapi/dashboard.yaml, Second
// factors; Session). Each ceremony asks the service for options, lets the browser talk to the
// authenticator (@simplewebauthn/browser) and sends its answer back.
import {
  type PublicKeyCredentialCreationOptionsJSON,
  startAuthentication,
  startRegistration,
} from '@simplewebauthn/browser';
import type { PublicKeyCredentialRequestOptionsJSON } from '@simplewebauthn/browser';
import type { components } from '../../../generated/dashboard.ts';
import { api } from './client.ts';
import { useDataQuery } from './data-query.ts';
import { ApiError, unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { Passkey, Session } from './types.ts';
import { type OnWrite, useWrite } from './writes.ts';

type Credential = components['schemas']['PasskeyCredential'];

/**
 * The browser's own refusals as the screens show them: the person cancelled or took too long
 * (NotAllowedError), or the authenticator holds this passkey already (InvalidStateError).
 */
function ceremonyError(err: unknown): ApiError {
  const name = (err as { name?: string })?.name;
  if (name === 'NotAllowedError' || name === 'AbortError')
    return new ApiError(0, 'The passkey was not used: it was cancelled or took too long. Try again.');
  if (name === 'InvalidStateError') return new ApiError(0, 'This device already holds one of your passkeys.');
  if (err instanceof ApiError) return err;
  return new ApiError(0, 'This browser could not use a passkey here.');
}

async function inBrowser<T>(ceremony: () => Promise<T>): Promise<T> {
  try {
    return await ceremony();
  } catch (err) {
    throw ceremonyError(err);
  }
}

const register = (optionsJSON: unknown) =>
  inBrowser(() => startRegistration({ optionsJSON: optionsJSON as PublicKeyCredentialCreationOptionsJSON }));
const authenticate = (optionsJSON: unknown) =>
  inBrowser(() => startAuthentication({ optionsJSON: optionsJSON as PublicKeyCredentialRequestOptionsJSON }));

const passkeysApi = {
  async add(name: string) {
    const { data } = await unwrap(api.POST('/account/passkeys/registration'));
    const credential = (await register(data.options)) as unknown as Credential;
    return unwrap(api.POST('/account/passkeys', { body: { name, credential } }));
  },
  rename: (p: Passkey, name: string) =>
    unwrap(api.PATCH('/account/passkeys/{passkeyId}', { params: { path: { passkeyId: p.id } }, body: { name } })),
  remove: (p: Passkey) =>
    unwrap(api.DELETE('/account/passkeys/{passkeyId}', { params: { path: { passkeyId: p.id } } })),
  async signIn(): Promise<Session> {
    const { data } = await unwrap(api.POST('/session/passkey/options'));
    const credential = (await authenticate(data.options)) as unknown as Credential;
    return unwrap(api.POST('/session/passkey', { body: { credential } }));
  },
  async secondStep(): Promise<Session> {
    const { data } = await unwrap(api.POST('/session/second-factor/passkey/options'));
    const credential = (await authenticate(data.options)) as unknown as Credential;
    return unwrap(api.POST('/session/second-factor/passkey', { body: { credential } }));
  },
};

/** Whether this browser can make and use passkeys at all. */
export const passkeysSupported = () =>
  typeof window !== 'undefined' && typeof window.PublicKeyCredential === 'function';

export const usePasskeys = () => useDataQuery(keys.passkeys, () => api.GET('/account/passkeys'));

/** A passkey counts as a second factor: the factors' status and the session change with it. */
const PASSKEY_KEYS = [keys.passkeys, keys.secondFactor] as const;

export const useAddPasskey = (on: OnWrite<{ data: Passkey }, string>) =>
  useWrite((name: string) => passkeysApi.add(name), PASSKEY_KEYS, on);

export const useRenamePasskey = (on: OnWrite<{ data: Passkey }, { passkey: Passkey; name: string }>) =>
  useWrite(
    ({ passkey, name }: { passkey: Passkey; name: string }) => passkeysApi.rename(passkey, name),
    [keys.passkeys],
    on,
  );

export const useRemovePasskey = (on: OnWrite<unknown, Passkey>) =>
  useWrite((p: Passkey) => passkeysApi.remove(p), PASSKEY_KEYS, on);

const putSession = (session: Session) => queryClient.setQueryData(keys.session, session);

/** Signs in with a passkey alone: the session it starts is put in place before `onSuccess`. */
export const usePasskeySignIn = (on: OnWrite<Session, void>) => useWrite(() => passkeysApi.signIn(), putSession, on);

/** The second step with a passkey. */
export const usePasskeySecondStep = (on: OnWrite<Session, void>) =>
  useWrite(() => passkeysApi.secondStep(), putSession, on);
