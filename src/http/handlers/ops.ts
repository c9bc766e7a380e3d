import type { Services } from '../services';
import { HttpError, notFound } from '../errors';
import type { Result } from './types';

export function opsHandlers(services: Services) {
  return {
    async getHealth(): Promise<Result> {
      return { status: 200, body: { status: 'ok' } };
    },
    // The short-link paths are answered by src/redirect before Express; what reaches the API
    // app is a reserved name or a host that is not a short domain.
    async followShortLink(): Promise<Result> {
      throw notFound('No short link here');
    },
    async submitLinkPassword(): Promise<Result> {
      throw notFound('No short link here');
    },
    async scanQrCode(): Promise<Result> {
      throw notFound('No QR code here');
    },
    async getReadiness(): Promise<Result> {
      try {
        await services.db.knex.raw('select 1');
      } catch {
        // No `code`: the contract keeps codes for features switched off, where retrying does
        // not help; an unreachable database is worth retrying.
        throw new HttpError(503, 'The database is not reachable');
      }
      return { status: 200, body: { status: 'ready' } };
    },
  };
}
