// A write and what its answer changes in the cache: the API modules' mutation hooks are built on
// this, so a screen passes only what it shows (its notice, its errors, where it goes next) and
// never refreshes a read itself.
import { type QueryKey, useMutation } from '@tanstack/react-query';
import { queryClient } from './query-client.ts';

/** What a request function resolves to: the data a write's hook hands the screen. */
export type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

/** What a screen adds to a write: its own state on start, success and failure. */
export interface OnWrite<TData, TVars> {
  onMutate?: (vars: TVars) => unknown;
  /** May return a promise: the write stays pending until it settles. */
  onSuccess?: (data: TData, vars: TVars) => unknown;
  onError?: (err: Error, vars: TVars) => unknown;
}

/**
 * Sends `request`. What the answer changes comes in one of two forms:
 * - a function that updates the cache, run before the screen's `onSuccess`, so that a screen it
 *   opens next reads the answer;
 * - the keys the write makes stale, marked after the screen's `onSuccess` without waiting for the
 *   refetch (the write is done once the service has answered).
 * A screen's `onSuccess` may return a promise: the write stays pending until it settles.
 */
export function useWrite<TData, TVars = void>(
  request: (vars: TVars) => Promise<TData>,
  after: ((data: TData, vars: TVars) => void) | readonly QueryKey[] | null,
  on: OnWrite<TData, TVars> = {},
) {
  return useMutation<TData, Error, TVars>({
    mutationFn: request,
    onMutate: (vars) => on.onMutate?.(vars),
    onSuccess: (data, vars) => {
      if (typeof after === 'function') after(data, vars);
      const shown = on.onSuccess?.(data, vars);
      if (Array.isArray(after)) for (const queryKey of after) void queryClient.invalidateQueries({ queryKey });
      return shown;
    },
    onError: (err, vars) => on.onError?.(err, vars),
  });
}
