import { QueryClient } from '@tanstack/react-query';
import { ApiError } from './errors.ts';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      // A 4xx will answer the same again; only unreachable or failing services are retried.
      retry: (failures, err) => !(err instanceof ApiError && err.status >= 400 && err.status < 500) && failures < 2,
    },
    mutations: { retry: false },
  },
});
