import { and, asc, desc, gt, lt } from 'drizzle-orm';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { eventsVisible, ownerViewer, seesOtherWorkers, type Viewer } from '../audience.ts';
import type { CampaignRow } from '../core/member.ts';
import { campaignEvents } from '../tables.ts';

/** Reading the ledger: the queries (always through audience.eventsVisible) and the event's wire shape. */

export type EventRow = typeof campaignEvents.$inferSelect;

/** Who acted, as agents and the console see it. */
export type PresentedActor =
  | { agent_id: string; role: string }
  | { owner_id: string; role: 'OWNER' }
  | { role: 'SYSTEM' };

export function presentEvent(e: EventRow) {
  const actor: PresentedActor = e.actorAgentId
    ? { agent_id: e.actorAgentId, role: e.actorRole }
    : e.actorOwnerId
      ? { owner_id: e.actorOwnerId, role: 'OWNER' }
      : { role: 'SYSTEM' };
  return {
    event_id: e.id,
    seq: e.seq,
    kind: e.kind,
    at: e.createdAt.toISOString(),
    actor,
    task_id: e.taskId,
    message_id: e.messageId,
    addressed_to: e.addressedTo,
    evidence_ids: e.evidenceIds,
    subject_agent_id: e.subjectAgentId,
    payload: e.payload,
  };
}

export type PresentedEvent = ReturnType<typeof presentEvent>;

/** Payload keys that name the agent working on a task. */
const WORKER_KEYS = ['assignee_id', 'agent_id', 'paid_to_agent_id', 'reserved_for'] as const;

/**
 * The event as `viewer` may see it. Under BLIND_EXPERIMENT a participant sees coordinators'
 * events, and some of them name a worker (a task published or assigned to a participant): the
 * other participant's id becomes null there, as task_get shows it, so the ledger does not tell
 * who works on what either.
 */
export function presentEventFor(viewer: Viewer, e: EventRow): PresentedEvent {
  const shown = presentEvent(e);
  if (seesOtherWorkers(viewer)) return shown;
  const hide = (id: unknown) => (typeof id === 'string' && id !== viewer.agentId ? null : id);
  const payload = { ...shown.payload };
  for (const k of WORKER_KEYS) if (k in payload) payload[k] = hide(payload[k]);
  return { ...shown, subject_agent_id: hide(shown.subject_agent_id) as string | null, payload };
}

/** Visible events after `afterSeq`, oldest first: what events_watch returns. */
export async function eventsAfter(ex: Executor, viewer: Viewer, afterSeq: number, limit: number) {
  return ex
    .select()
    .from(campaignEvents)
    .where(and(eventsVisible(viewer), gt(campaignEvents.seq, afterSeq)))
    .orderBy(asc(campaignEvents.seq))
    .limit(limit);
}

/** Visible events before `beforeSeq` (or the newest), newest first, one more than `limit` to tell if more exist. */
export async function eventsBefore(ex: Executor, viewer: Viewer, limit: number, beforeSeq?: number) {
  return ex
    .select()
    .from(campaignEvents)
    .where(
      and(eventsVisible(viewer), beforeSeq === undefined ? undefined : lt(campaignEvents.seq, beforeSeq)),
    )
    .orderBy(desc(campaignEvents.seq))
    .limit(limit + 1);
}

/**
 * The campaign's ledger for its owner of record in the console, newest first. `nextBeforeSeq`
 * continues the page (pass it as `beforeSeq`); null when this is the oldest page.
 */
export async function listEventsForOwner(
  ex: Executor,
  campaign: CampaignRow,
  limit: number,
  beforeSeq?: number,
): Promise<{ events: PresentedEvent[]; nextBeforeSeq: number | null }> {
  const rows = await eventsBefore(ex, ownerViewer(campaign), limit, beforeSeq);
  const page = cutPage(rows, limit, (last) => last.seq);
  return {
    events: page.rows.map(presentEvent),
    nextBeforeSeq: page.next,
  };
}

/**
 * The binding of events_watch cursors: the caller and the campaign. context_read hands out the
 * same kind of cursor (ledger_cursor), so watching can start where reading ended.
 */
export const watchBinding = (agentId: string, campaignId: string) => `events_watch:${agentId}:${campaignId}`;

export function signWatchCursor(secret: string, agentId: string, campaignId: string, seq: number): string {
  return signCursor(secret, watchBinding(agentId, campaignId), { seq });
}

/** The position of an events_watch cursor; CURSOR_INVALID when forged, foreign or malformed. */
export function openWatchCursor(secret: string, agentId: string, campaignId: string, cursor: string): number {
  const { seq } = openCursor<{ seq?: unknown }>(secret, watchBinding(agentId, campaignId), cursor);
  if (typeof seq !== 'number' || !Number.isSafeInteger(seq) || seq < 0) {
    throw new DomainError('CURSOR_INVALID', 'The cursor is not valid for this caller and query.', {});
  }
  return seq;
}
