import type { Services } from '../services';
import { HttpError } from '../errors';
import type { Result } from './types';

export function opsHandlers(services: Services) {
  return {
    async getHealth(): Promise<Result> {
      return { status: 200, body: { status: 'ok' } };
    },
    async getReadiness(): Promise<Result> {
      try {
        await services.db.knex.raw('select 1');
      } catch {
        throw new HttpError(503, 'The database is not reachable', undefined, 'database_unavailable');
      }
      return { status: 200, body: { status: 'ready' } };
    },
  };
}
