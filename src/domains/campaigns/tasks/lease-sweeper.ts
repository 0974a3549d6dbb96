import { and, eq, type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import type { Database } from '../../../storage/database.ts';
import { inactiveAgent } from '../../identity/index.ts';
import { closedUnsettled, settleClosed } from '../campaign-close.ts';
import { taskLeases } from '../tables.ts';
import { endLeasesOfHolders, expireDueLeases } from './leases.ts';

const SWEEP_EVERY_MS = 30_000;

export type SweepResult = { expired_leases: number; stopped_released: number; closed_settled: number };
const BATCH = 100;
const MAX_BATCHES = 20;

/**
 * Ends every lease past its execution_deadline at `now`, in batches of their own transactions
 * (optionally only in one campaign). Leases are already treated as ended once their deadline
 * passes; the sweep is what puts the expiry on the ledger (TASK_LEASE_EXPIRED) for watchers and
 * reopens the task in task_list without waiting for the next claim. Every replica may run it:
 * tasks another sweeper holds are skipped.
 */
export async function sweepExpiredLeases(
  database: Database,
  now: Date,
  opts: { campaignId?: string } = {},
): Promise<{ expired_leases: number }> {
  let expired = 0;
  for (let i = 0; i < MAX_BATCHES; i++) {
    const ended = await database.transaction((tx) => expireDueLeases(tx, now, { ...opts, limit: BATCH }));
    expired += ended.length;
    if (ended.length < BATCH) break;
  }
  return { expired_leases: expired };
}

/**
 * Releases the leases of identities that stopped (deactivated, suspended, revoked): identity
 * knows nothing of leases, so its owner's "stop" reaches them here, within one sweep. The
 * identity itself is refused everything at its next call; this frees its tasks for others.
 */
export async function sweepStoppedHolders(
  database: Database,
  now: Date,
  opts: { campaignId?: string } = {},
): Promise<{ stopped_released: number }> {
  const ended = await database.transaction((tx) =>
    endLeasesOfHolders(tx, now, {
      where: and(
        inactiveAgent(taskLeases.agentId),
        opts.campaignId ? eq(taskLeases.campaignId, opts.campaignId) : undefined,
      ) as SQL,
      reason: 'HOLDER_INACTIVE',
      actor: { role: 'SYSTEM' },
      wait: false,
    }),
  );
  return { stopped_released: ended.length };
}

/**
 * Settles closed campaigns that still have unfinished tasks or live boards: what a close left
 * behind (a task published in the instant the campaign closed, a close whose second step failed).
 */
export async function sweepClosedCampaigns(
  database: Database,
  now: Date,
): Promise<{ closed_settled: number }> {
  const due = await closedUnsettled(database.db, 20);
  for (const campaign of due) {
    await database.transaction((tx) => settleClosed(tx, campaign, now, { skipLocked: true }));
  }
  return { closed_settled: due.length };
}

/**
 * Runs sweepExpiredLeases (and sweepClosedCampaigns) every 30 seconds in this process until stopped. Its "now" is the
 * earlier of the injected clock and the database's clock: in production the two agree, and a
 * process whose clock runs ahead (a test's fake clock, a skewed host) cannot end the leases of
 * other processes sharing the database before their time.
 */
export class LeaseSweeper {
  private timer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly onResult: (result: SweepResult | Error) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      // One sweep at a time: a slow database must not stack sweeps up.
      if (this.running) return;
      this.running = true;
      this.sweep()
        .then(this.onResult, (err: Error) => this.onResult(err))
        .finally(() => {
          this.running = false;
        });
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async sweep(): Promise<SweepResult> {
    // Both drivers answer execute() with { rows }; timestamptz comes back as a Date or its text.
    const result = (await this.database.db.execute(sql`select now() as now`)) as unknown as {
      rows: Array<{ now: Date | string }>;
    };
    const dbNow = new Date(result.rows[0]?.now ?? 0);
    const own = this.clock.now();
    const now = dbNow.getTime() < own.getTime() ? dbNow : own;
    return {
      ...(await sweepExpiredLeases(this.database, now)),
      ...(await sweepStoppedHolders(this.database, now)),
      ...(await sweepClosedCampaigns(this.database, now)),
    };
  }
}
