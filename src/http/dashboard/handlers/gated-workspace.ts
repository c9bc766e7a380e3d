// The request's workspace for the screens behind a gate of plan or deployment (goals, conversions,
// webhooks): the gate throws its own error (403 for the plan, 503 for a feature switched off).
import type { Plan } from '../../../domain/access.ts';
import type { DashboardContext, WorkspaceContext } from '../types.ts';

/** The path's workspace, once `gate` lets its plan through. */
export function gatedWorkspace(ctx: DashboardContext, gate: (plan: Plan) => void): WorkspaceContext {
  const w = ctx.workspace!;
  gate(w.plan);
  return w;
}
