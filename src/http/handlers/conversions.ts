// Conversions and goals in the public API (openapi/paths/api_v1_conversions.yaml,
// api_v1_goals*.yaml): the conversion and goal operations (src/operations/) for the key's workspace.
import { conversionSummary, goalReport, recordConversion, requireConversions } from '../../operations/conversions.ts';
import { listGoals, presentGoal, requireGoals } from '../../operations/goals.ts';
import type { Services } from '../services.ts';
import type { Handlers, ResultOf } from './types.ts';

export function conversionHandlers(
  services: Services,
): Pick<Handlers, 'recordConversion' | 'getConversionSummary' | 'listGoals' | 'getGoalReport'> {
  const { config } = services;
  return {
    async recordConversion(request, { auth, requestId }): Promise<ResultOf<'recordConversion'>> {
      const idempotencyKey = request.headers['idempotency-key'] as string | undefined;
      // A repeat of an earlier request is answered as the first was: always the 201.
      const body = await recordConversion(services, auth.workspaceId, requestId, request.body, idempotencyKey);
      return { status: 201, body };
    },

    async getConversionSummary({ query }, { auth }): Promise<ResultOf<'getConversionSummary'>> {
      requireConversions(config);
      return { status: 200, body: await conversionSummary(services, auth.workspaceId, query) };
    },

    async listGoals({ query }, { auth }): Promise<ResultOf<'listGoals'>> {
      requireGoals(config);
      const rows = await listGoals(services.db.knex, auth.workspaceId, query.status);
      return { status: 200, body: { data: rows.map(presentGoal) } };
    },

    async getGoalReport({ params, query }, { auth }): Promise<ResultOf<'getGoalReport'>> {
      requireGoals(config);
      return { status: 200, body: await goalReport(services, auth.workspaceId, params.id, query) };
    },
  };
}
