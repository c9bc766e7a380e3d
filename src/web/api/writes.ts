// A write and the reads it makes stale: the API modules' mutation hooks are built on this, so a
// screen passes only what it shows (its notice, its errors) and never refreshes a list itself.
import { type QueryKey, useMutation } from '@tanstack/react-query';
import { queryClient } from './query-client.ts';

/** What a request function resolves to: the data a write's hook hands the screen. */
export type Answer<F extends (...args: never[]) => Promise<unknown>> = Awaited<ReturnType<F>>;

/** What a screen adds to a write: its own answer to success and failure. */
export interface OnWrite<TData, TVars> {
  /** May return a promise: the write stays pending until it settles. */
  onSuccess?: (data: TData, vars: TVars) => unknown;
  onError?: (err: Error, vars: TVars) => unknown;
}

/**
 * Sends `request`; on success runs the screen's `onSuccess`, then marks every key of `stale` stale
 * without waiting for the refetch (the write is done once the service has answered).
 */
export function useWrite<TData, TVars = void>(
  request: (vars: TVars) => Promise<TData>,
  stale: readonly QueryKey[],
  { onSuccess, onError }: OnWrite<TData, TVars> = {},
) {
  return useMutation<TData, Error, TVars>({
    mutationFn: request,
    onSuccess: (data, vars) => {
      const shown = onSuccess?.(data, vars);
      for (const queryKey of stale) void queryClient.invalidateQueries({ queryKey });
      return shown;
    },
    onError: (err, vars) => onError?.(err, vars),
  });
}
