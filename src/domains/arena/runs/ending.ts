/**
 * How a run ends without a score: an assignment not started within its hour, a run past its
 * deadline (EXPIRED), or the owner's cancellation (CANCELLED). Either way the world is destroyed
 * and the members' assignments stop being current. Expiry is swept in the background and also
 * applied where an owner assigns again, so a stale run never blocks a new assignment.
 */
import { and, eq, inArray, isNotNull, lte, or, sql } from 'drizzle-orm';
import type { Worker } from '../../../framework/index.ts';
import type { Clock } from '../../../kernel/clock.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { arenaRunMembers, arenaRuns } from '../tables.ts';
import { destroyWorld } from './workspace-files.ts';

/** Ends one run (already locked or just selected) with `state`. */
export async function endRun(
  ex: Executor,
  runId: string,
  state: 'EXPIRED' | 'CANCELLED',
  now: Date,
): Promise<void> {
  await destroyWorld(ex, runId);
  await ex
    .update(arenaRuns)
    .set({ state, endedAt: now, worldDestroyedAt: now, workspaceBytes: 0 })
    .where(eq(arenaRuns.id, runId));
  await ex.update(arenaRunMembers).set({ current: false }).where(eq(arenaRunMembers.runId, runId));
}

/** The condition of a run that has outlived its assignment hour or its deadline at `now`. */
const overdue = (now: Date) =>
  or(
    and(eq(arenaRuns.state, 'ASSIGNED'), lte(arenaRuns.assignmentExpiresAt, now)),
    and(
      inArray(arenaRuns.state, ['RUNNING', 'SUBMITTED']),
      isNotNull(arenaRuns.deadline),
      lte(arenaRuns.deadline, now),
    ),
  );

/** Expires the overdue runs (all, or those of one identity); returns their ids. */
export async function expireOverdue(ex: Executor, now: Date, agentId?: string): Promise<string[]> {
  const rows = await ex
    .select({ id: arenaRuns.id })
    .from(arenaRuns)
    .where(
      and(
        overdue(now),
        agentId === undefined
          ? undefined
          : sql`exists (select 1 from ${arenaRunMembers} m where m.run_id = ${arenaRuns.id} and m.agent_id = ${agentId})`,
      ),
    )
    .orderBy(arenaRuns.id)
    .limit(200)
    .for('update', { skipLocked: true });
  for (const row of rows) await endRun(ex, row.id, 'EXPIRED', now);
  return rows.map((r) => r.id);
}

const SWEEP_MS = 30_000;

/** The background sweep, on every replica (row locks with SKIP LOCKED keep them apart). */
export function expirySweeper(database: Database, clock: Clock, onError: (err: unknown) => void): Worker {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;
  return {
    start() {
      timer = setInterval(() => {
        if (running) return;
        running = database
          .transaction((tx) => expireOverdue(tx, clock.now()))
          .catch(onError)
          .finally(() => {
            running = undefined;
          });
      }, SWEEP_MS);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
