import { ping } from '../../db/knex.ts';
import type { Services } from '../services.ts';
import { notFound, unavailable } from '../../domain/errors.ts';
import type { Handlers, ResultOf } from './types.ts';

export function opsHandlers(services: Services): Pick<Handlers, 'getHealth' | 'followShortLink' | 'submitLinkPassword' | 'scanQrCode' | 'getReadiness'> {
  return {
    async getHealth(): Promise<ResultOf<'getHealth'>> {
      return { status: 200, body: { status: 'ok' } };
    },
    // The short-link paths are answered by src/redirect before Express; what reaches the API
    // app is a reserved name or a host that is not a short domain.
    async followShortLink(): Promise<ResultOf<'followShortLink'>> {
      throw notFound('No short link here');
    },
    async submitLinkPassword(): Promise<ResultOf<'submitLinkPassword'>> {
      throw notFound('No short link here');
    },
    async scanQrCode(): Promise<ResultOf<'scanQrCode'>> {
      throw notFound('No QR code here');
    },
    async getReadiness(): Promise<ResultOf<'getReadiness'>> {
      try {
        await ping(services.db);
      } catch {
        // No `code`: the contract keeps codes for features switched off, where retrying does
        // not help; an unreachable database is worth retrying.
        throw unavailable('The database is not reachable');
      }
      return { status: 200, body: { status: 'ready' } };
    },
  };
}
