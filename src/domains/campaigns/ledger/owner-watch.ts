import type { Executor } from '../../../storage/database.ts';
import { ownerViewer } from '../audience.ts';
import type { CampaignRow } from '../core/member.ts';
import { eventsAfter, type PresentedEvent, presentEvent } from './ledger-repo.ts';
import type { LedgerWaiter } from './ledger-waiter.ts';

/**
 * The owner of record's side of events_watch, for the console's live campaign page: the same
 * wake-ups (one LISTEN per process, so a commit on any replica wakes the page) and the same
 * seq cursor, read through the same visibility rule as the page's ledger (ownerViewer).
 */

/**
 * How often a waiting page re-reads without a wake-up: NOTIFY is only a hint, and one sent
 * while this replica's LISTEN connection was reconnecting is never delivered (as events_watch).
 */
const SAFETY_RECHECK_MS = 5_000;

export interface OwnerWait {
  /** The owner's visible events after the cursor, oldest first; empty when the time ran out. */
  events: PresentedEvent[];
  /** The process is closing (or the caller aborted): stop asking. */
  closed: boolean;
}

/**
 * Events after `afterSeq` of the campaign `load` returns, waiting up to `waitMs` for the first.
 * `load` checks ownership (NOT_FOUND for another owner's campaign), once per call: a stream
 * asks again at least every heartbeat, so it never outlives the owner's right to the page.
 */
export async function waitForOwnerEvents(
  ex: Executor,
  ledger: LedgerWaiter,
  load: () => Promise<CampaignRow>,
  afterSeq: number,
  opts: { waitMs: number; limit: number; signal?: AbortSignal | undefined },
): Promise<OwnerWait> {
  const campaign = await load();
  const viewer = ownerViewer(campaign);
  const started = performance.now();
  for (;;) {
    // Armed before the read: a commit between the read and the wait still wakes this call.
    const ticket = await ledger.arm(campaign.id);
    try {
      const rows = await eventsAfter(ex, viewer, afterSeq, opts.limit);
      if (rows.length > 0) return { events: rows.map(presentEvent), closed: false };
      const left = opts.waitMs - (performance.now() - started);
      if (left <= 0) return { events: [], closed: false };
      const outcome = await ticket.wait(Math.min(left, SAFETY_RECHECK_MS), opts.signal);
      if (outcome === 'closed') return { events: [], closed: true };
    } finally {
      ticket.cancel();
    }
  }
}
