// What both apps (the public API, app.ts; the dashboard, dashboard/app.ts) take from
// openapi-backend: an operation's request, and the answers when it runs no operation: a request
// the contract refuses (400), no valid credentials (401), no such route (404), a method the path
// does not have (405 naming the ones it has).
import type { Context } from 'openapi-backend';
import { methodNotAllowed, notFound, unauthenticated } from '../domain/errors.ts';
import { validationError } from './validation.ts';

/** openapi-backend's context as an operation's request (its parts, as the contract typed them). */
export function contractRequest<R>(c: Context): R {
  const { params, query, headers, requestBody } = c.request;
  return { params, query, headers, body: requestBody } as unknown as R;
}

/** Each app's security scheme (whose handler leaves `error` when its check could not run) and words. */
const APPS = {
  api: { scheme: 'bearerAuth', signIn: 'A valid API key is required', noRoute: 'No such API route' },
  dashboard: { scheme: 'session', signIn: 'Sign in first', noRoute: 'No such dashboard route' },
} as const;

/** `allowed`: the methods a request path allows (routing.ts, preferFixedPaths). */
export function contractFailureHandlers(app: keyof typeof APPS, allowed: (requestPath: string) => string[]) {
  const o = APPS[app];
  return {
    validationFail: (c: Context) => {
      throw validationError((c.validation.errors ?? []) as any, c.operation as any, c.request);
    },
    unauthorizedHandler: (c: Context) => {
      const err = (c.security as any)?.[o.scheme]?.error;
      // A check that could not run (the database is unreachable) says nothing about the
      // credentials: answering 401 would make clients drop a good key. It is the server's failure.
      if (err) throw err;
      throw unauthenticated(o.signIn);
    },
    notFound: () => {
      throw notFound(o.noRoute);
    },
    methodNotAllowed: (c: Context) => {
      // RFC 9110: a 405 names the methods the path allows (the path of the contract it is).
      const { method, path } = c.request;
      throw methodNotAllowed(`Method ${method.toUpperCase()} is not allowed on ${path}`, allowed(path));
    },
  };
}
