import { and, asc, eq, inArray, isNull, notInArray, sql } from 'drizzle-orm';
import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { enqueueToolsChanged } from '../identity/index.ts';
import { boards, publicEntries } from './boards/tables.ts';
import { appendEvent } from './core/ledger.ts';
import type { CampaignRow } from './core/member.ts';
import { findCampaign } from './membership/members-repo.ts';
import { presentCampaign } from './present.ts';
import { campaignMembers, campaigns, tasks } from './tables.ts';
import { cancelLocked } from './tasks/task-cancel.ts';

/**
 * Closing a campaign (docs/campaign-lifecycle.md). Two steps, each its own transaction:
 *
 * 1. `markClosed` sets CLOSED and records CAMPAIGN_CLOSED. It takes only the campaign row, so it
 *    never waits on a task row while holding the row every task writer takes last (the area's
 *    lock order); from its commit on, every change is refused with CAMPAIGN_CLOSED.
 * 2. `settleClosed` ends what was still running: tasks not VERIFIED are cancelled (leases end,
 *    escrow and fee refunded, pending release requests cancelled, each on the ledger), boards
 *    are withdrawn and their public entries end. A writer that read ACTIVE just before step 1 and
 *    committed after it is caught by the lease sweeper, which settles closed campaigns too.
 */

/**
 * Closes a campaign: `load` finds it for this caller (the owner of record's check, or the
 * operator's lookup). Closing a closed campaign answers its state again and settles what a
 * failed earlier close left, so a retried request is harmless.
 */
export async function closeCampaign(
  database: Database,
  clock: Clock,
  load: (ex: Executor) => Promise<CampaignRow>,
  reason: string | undefined,
) {
  const why = ownerReason(reason, 'closed by the owner of record', 'close');
  const marked = await database.transaction(async (tx) => {
    const campaign = await load(tx);
    return {
      campaign,
      closed: await markClosed(tx, campaign.id, { ownerId: campaign.ownerId }, why, clock.now()),
    };
  });
  const settled = await database.transaction((tx) => settleClosed(tx, marked.campaign, clock.now()));
  return {
    ...presentCampaign(await load(database.db)),
    already_closed: marked.closed === null,
    settled,
    next: settled.more
      ? 'More unfinished tasks remain than one pass cancels; the rest are cancelled within a minute.'
      : 'The campaign is closed: members keep reading its evidence, findings and ledger; new work starts in another campaign.',
  };
}

/** The operator's close (`cairn campaign close`), recorded as the owner of record's like every close. */
export function closeByOperator(database: Database, clock: Clock, campaignId: string, reason?: string) {
  return closeCampaign(database, clock, anyCampaign(campaignId), reason);
}

/** The operator's lookup: any campaign of the deployment, NOT_FOUND when there is none. */
export function anyCampaign(campaignId: string) {
  return async (ex: Executor): Promise<CampaignRow> => {
    const campaign = await findCampaign(ex, campaignId);
    if (!campaign) {
      throw new DomainError('NOT_FOUND', `No campaign ${campaignId} exists.`, { campaign_id: campaignId });
    }
    return campaign;
  };
}

/** Step 1: CLOSED, with the reason and the ledger event. Answers null if it was closed already. */
export async function markClosed(
  ex: Executor,
  campaignId: string,
  closedBy: { ownerId: string },
  reason: string,
  now: Date,
): Promise<{ closedAt: Date } | null> {
  const [row] = await ex
    .update(campaigns)
    .set({ status: 'CLOSED', closedAt: now, closeReason: reason })
    .where(and(eq(campaigns.id, campaignId), inArray(campaigns.status, ['ACTIVE', 'STOPPING'])))
    .returning({ id: campaigns.id });
  if (!row) return null;
  await appendEvent(
    ex,
    campaignId,
    { kind: 'CAMPAIGN_CLOSED', actor: { ownerId: closedBy.ownerId, role: 'OWNER' }, payload: { reason } },
    now,
  );
  // Members and invitees: their tool lists change (campaign tools turn read-only or go).
  const tied = await ex
    .select({ agentId: campaignMembers.agentId })
    .from(campaignMembers)
    .where(
      and(
        eq(campaignMembers.campaignId, campaignId),
        inArray(campaignMembers.status, ['ACTIVE', 'INVITED', 'OWNER_PENDING', 'APPLIED']),
      ),
    );
  for (const { agentId } of tied) await enqueueToolsChanged(ex, agentId, now);
  return { closedAt: now };
}

export interface Settled {
  tasks_cancelled: number;
  leases_ended: number;
  rewards_refunded: number;
  boards_withdrawn: number;
  public_entries_ended: number;
  /** More unfinished tasks than one pass takes: the lease sweeper settles the rest. */
  more: boolean;
}

/** Tasks one pass cancels: bounded, so a campaign with thousands of tasks is settled in slices. */
const SETTLE_BATCH = 200;

/**
 * Step 2, for a CLOSED campaign: cancels its unfinished tasks (as the owner of record would, one
 * by one, with reason "campaign closed") and withdraws its boards. `skipLocked` is the sweeper's
 * way (a task another transaction holds is left for its next pass); the closing owner waits.
 */
export async function settleClosed(
  ex: Executor,
  campaign: { id: string; ownerId: string },
  now: Date,
  opts: { skipLocked?: boolean } = {},
): Promise<Settled> {
  const unfinished = and(
    eq(tasks.campaignId, campaign.id),
    notInArray(tasks.status, ['VERIFIED', 'CANCELLED']),
  );
  // Task rows first, in id order (the area's lock order), then whatever each cancellation takes.
  const query = ex
    .select()
    .from(tasks)
    .where(unfinished)
    .orderBy(asc(tasks.id))
    .limit(SETTLE_BATCH + 1);
  const locked = opts.skipLocked
    ? await query.for('update', { skipLocked: true })
    : await query.for('update');
  const batch = locked.slice(0, SETTLE_BATCH);
  let leases = 0;
  let refunds = 0;
  for (const task of batch) {
    const done = await cancelLocked(ex, campaign.ownerId, task, 'campaign closed', now);
    if (task.status === 'CLAIMED') leases += 1;
    if (done.reward_status === 'REFUNDED') refunds += 1;
  }
  const { withdrawn, entries } = await withdrawBoards(ex, campaign, now);
  return {
    tasks_cancelled: batch.length,
    leases_ended: leases,
    rewards_refunded: refunds,
    boards_withdrawn: withdrawn,
    public_entries_ended: entries,
    more: locked.length > SETTLE_BATCH,
  };
}

/** The campaign's live boards go from the public; their live entries end (their tasks are cancelled). */
async function withdrawBoards(ex: Executor, campaign: { id: string; ownerId: string }, now: Date) {
  const gone = await ex
    .update(boards)
    .set({ withdrawnAt: now, updatedAt: now })
    .where(and(eq(boards.campaignId, campaign.id), isNull(boards.withdrawnAt)))
    .returning();
  if (gone.length === 0) return { withdrawn: 0, entries: 0 };
  const ended = await ex
    .update(publicEntries)
    .set({ endedAt: now, endReason: 'CAMPAIGN_CLOSED' })
    .where(
      and(
        inArray(
          publicEntries.boardSlug,
          gone.map((b) => b.slug),
        ),
        isNull(publicEntries.endedAt),
      ),
    )
    .returning({ id: publicEntries.id });
  for (const board of gone) {
    await appendEvent(
      ex,
      campaign.id,
      {
        kind: 'BOARD_WITHDRAWN',
        actor: { ownerId: campaign.ownerId, role: 'OWNER' },
        payload: {
          slug: board.slug,
          title: board.title,
          purpose: board.purpose,
          task_ids: [],
          reason: 'campaign closed',
        },
      },
      now,
    );
  }
  return { withdrawn: gone.length, entries: ended.length };
}

/** Closed campaigns that still have something to settle (the sweeper's list), oldest first. */
export async function closedUnsettled(ex: Executor, limit: number) {
  return ex
    .select({ id: campaigns.id, ownerId: campaigns.ownerId })
    .from(campaigns)
    .where(
      and(
        eq(campaigns.status, 'CLOSED'),
        sql`(exists (select 1 from ${tasks} where ${tasks.campaignId} = ${campaigns.id}
               and ${tasks.status} not in ('VERIFIED', 'CANCELLED'))
          or exists (select 1 from ${boards} where ${boards.campaignId} = ${campaigns.id}
               and ${boards.withdrawnAt} is null))`,
      ),
    )
    .orderBy(asc(campaigns.closedAt))
    .limit(limit);
}

/** The close reason as given: trimmed, 1-500 characters. */
export function ownerReason(reason: string | undefined, fallback: string, what: 'close' | 'stop'): string {
  const text = (reason ?? '').trim();
  if (text.length === 0) return fallback;
  if (text.length > 500) {
    throw new DomainError('VALIDATION_FAILED', `A ${what} reason is at most 500 characters.`, {
      detail: [{ loc: ['body', 'reason'], msg: 'at most 500 characters', type: 'too_long' }],
    });
  }
  return text;
}
