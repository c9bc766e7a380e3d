// The typed client of the dashboard API (generated/dashboard.ts from openapi/dashboard.yaml).
// Every request carries the session cookie (same origin); every state-changing one the
// session's anti-forgery token; a 401 anywhere but the sign-in form sends the person to sign in.
import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '../../../generated/dashboard.ts';
import { currentAppPath, goTo, isPublicScreen, signInPath } from '../lib/navigation.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { Session } from './types.ts';

export const API_BASE = '/app/api';

export const api = createClient<paths>({ baseUrl: API_BASE, credentials: 'same-origin' });

const STATE_CHANGING = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

const antiForgery: Middleware = {
  onRequest({ request }) {
    if (!STATE_CHANGING.has(request.method)) return undefined;
    const token = queryClient.getQueryData<Session>(keys.session)?.csrfToken;
    if (token) request.headers.set('X-CSRF-Token', token);
    return request;
  },
};

const signInWhenSessionEnds: Middleware = {
  onResponse({ request, response, schemaPath }) {
    if (response.status !== 401) return undefined;
    // A wrong email or password is the sign-in form's to say.
    if (schemaPath === '/session' && request.method === 'POST') return undefined;
    const here = currentAppPath();
    if (isPublicScreen(here)) return undefined;
    goTo(signInPath(here), true);
    // What the ended session read is not the next person's to see.
    queueMicrotask(() => queryClient.removeQueries());
    return undefined;
  },
};

/**
 * A workspace's requirement of a second factor holds this session to enrolling (403
 * `second_factor_required`): reading the session again lets the app lead there.
 */
const enrolWhenRequired: Middleware = {
  async onResponse({ response }) {
    if (response.status !== 403) return undefined;
    const body = await response
      .clone()
      .json()
      .catch(() => null);
    if (body?.code === 'second_factor_required') void queryClient.invalidateQueries({ queryKey: keys.session });
    return undefined;
  },
};

api.use(antiForgery, signInWhenSessionEnds, enrolWhenRequired);

/** The path parameters of a request about one workspace. */
export const inWorkspace = (workspaceId: string) => ({ params: { path: { workspaceId } } });

/** A request body sent as it is (a file), with its own media type. */
export function rawBody(contentType: string) {
  return { bodySerializer: (body: unknown) => body, headers: { 'Content-Type': contentType } };
}
