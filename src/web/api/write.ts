// A write as screens use it: the resource's hook owns the request and what its answer changes in
// the cache; the screen passes only its own state changes, which run after the cache is up to date.
import { useMutation, type UseMutationOptions } from '@tanstack/react-query';

/** What a screen adds to a write: its own state on start, success and failure. */
export type ScreenCallbacks<TData, TVars> = Pick<
  UseMutationOptions<TData, Error, TVars>,
  'onMutate' | 'onSuccess' | 'onError'
>;

export function useWrite<TData, TVars = void>(
  mutationFn: (vars: TVars) => Promise<TData>,
  settle: ((data: TData, vars: TVars) => void) | null,
  callbacks: ScreenCallbacks<TData, TVars> = {},
) {
  return useMutation({
    ...callbacks,
    mutationFn,
    onSuccess: (data, vars, ...rest) => {
      settle?.(data, vars);
      return callbacks.onSuccess?.(data, vars, ...rest);
    },
  });
}
