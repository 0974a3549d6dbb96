/** The task and campaign the minimal server keeps in memory (bench/minimal-server.ts, bench/mcp.ts). */
export const MINIMAL_TASK_ID = 'tsk_01JZ0000000000000000000000';
export const MINIMAL_CAMPAIGN_ID = 'cmp_01JZ0000000000000000000000';

/**
 * The task conditions every benchmark publishes its tasks with (each term SPEC requires, none of
 * them read by anything measured), so the tasks Cairn, the plain-SQL floor and the minimal
 * server hold are the same.
 */
export const BENCH_CONDITIONS = {
  available_data: 'bench',
  authorized_scope: 'bench',
  deliverable: 'bench',
  reproduction_steps: 'bench',
  time_budget_minutes: 60,
  stop_conditions: 'bench',
  reviewer: 'bench',
};
