// A read of what the API answers under `data` (a resource or a list): the screens use that, not
// the envelope around it.
import { type QueryKey, useQuery } from '@tanstack/react-query';
import { type Answer, unwrap } from './errors.ts';

interface DataQueryOptions {
  enabled?: boolean;
  staleTime?: number;
  retry?: boolean;
}

export function useDataQuery<T>(
  queryKey: QueryKey,
  get: () => Promise<Answer<{ data: T }>>,
  options: DataQueryOptions = {},
) {
  return useQuery({ queryKey, queryFn: async () => (await unwrap(get())).data, ...options });
}
