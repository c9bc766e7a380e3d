// Goals and their reports; conversions, which goals count.
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, inWorkspace } from './client.ts';
import { unwrap } from './errors.ts';
import { keys } from './keys.ts';
import { queryClient } from './query-client.ts';
import type { Goal, GoalCreate } from './types.ts';
import { type OnWrite, useWrite } from './writes.ts';

/** The workspace's goals, of one status or (without one) all. */
export function useGoals(ws: string, status?: Goal['status'], enabled = true) {
  return useQuery({
    queryKey: [...keys.goals(ws), status ?? 'all'],
    queryFn: async () =>
      (
        await unwrap(
          api.GET('/workspaces/{workspaceId}/goals', {
            params: { path: { workspaceId: ws }, query: status ? { status } : {} },
          }),
        )
      ).data,
    enabled,
  });
}

/** A goal's report over [from, to); `days` and the goal's definition version name it in the cache. */
export function useGoalReport(ws: string, goal: Goal | undefined, goalId: string, days: string, from: Date, to: Date) {
  return useQuery({
    queryKey: keys.goalReport(ws, goalId, days, goal?.definitionVersion ?? 0),
    queryFn: () =>
      unwrap(
        api.GET('/workspaces/{workspaceId}/goals/{goalId}/report', {
          params: { path: { workspaceId: ws, goalId }, query: { from: from.toISOString(), to: to.toISOString() } },
        }),
      ),
    enabled: !!goal,
    placeholderData: keepPreviousData,
  });
}

/** The conversions report for a query of the Conversions screen (from, to and its filters). */
export function useConversions(ws: string, query: Record<string, string>, enabled: boolean) {
  return useQuery({
    queryKey: keys.conversions(ws, JSON.stringify(query)),
    queryFn: () =>
      unwrap(api.GET('/workspaces/{workspaceId}/conversions', { params: { path: { workspaceId: ws }, query } })),
    enabled,
    placeholderData: keepPreviousData,
  });
}

const goalsApi = {
  create: (workspaceId: string, body: GoalCreate) =>
    unwrap(api.POST('/workspaces/{workspaceId}/goals', { ...inWorkspace(workspaceId), body })),
  update: (workspaceId: string, goalId: string, body: GoalCreate) =>
    unwrap(api.PATCH('/workspaces/{workspaceId}/goals/{goalId}', { params: { path: { workspaceId, goalId } }, body })),
  setStatus: (workspaceId: string, goalId: string, status: Goal['status']) =>
    unwrap(
      api.POST('/workspaces/{workspaceId}/goals/{goalId}/status', {
        params: { path: { workspaceId, goalId } },
        body: { status },
      }),
    ),
};

type Answer<K extends keyof typeof goalsApi> = Awaited<ReturnType<(typeof goalsApi)[K]>>;

const goalsChanged = (ws: string) => () => void queryClient.invalidateQueries({ queryKey: keys.goals(ws) });

/** Makes a goal, or (with `goalId`) sends what changed of one. */
export const useSaveGoal = (
  ws: string,
  goalId: string | undefined,
  callbacks?: OnWrite<Answer<'create'>, GoalCreate>,
) =>
  useWrite(
    (body: GoalCreate) => (goalId ? goalsApi.update(ws, goalId, body) : goalsApi.create(ws, body)),
    goalsChanged(ws),
    callbacks,
  );

export const useGoalStatus = (ws: string, goalId: string, callbacks?: OnWrite<Answer<'setStatus'>, Goal['status']>) =>
  useWrite((status: Goal['status']) => goalsApi.setStatus(ws, goalId, status), goalsChanged(ws), callbacks);
