import { eq, sql } from 'drizzle-orm';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { campaignEvents, campaigns } from '../tables.ts';

/** The channel every replica LISTENs on for ledger wake-ups; the payload is the campaign id. */
export const LEDGER_CHANNEL = 'cairn_ledger';

export type ActorRole = 'OWNER' | 'COORDINATOR' | 'PARTICIPANT' | 'SYSTEM';

/**
 * Who did it: an agent (with its role then), the owner of record from the console, or Cairn
 * itself (a lease running out).
 */
export type Actor =
  | { agentId: string; role: 'COORDINATOR' | 'PARTICIPANT' }
  | { ownerId: string; role: 'OWNER' }
  | { role: 'SYSTEM' };

export interface NewEvent {
  kind: string;
  actor: Actor;
  taskId?: string | null;
  messageId?: string | null;
  addressedTo?: string | null;
  /** A result (a submission or its checks): hidden from other members under OWNER_ONLY_RESULTS. */
  isResult?: boolean;
  evidenceIds?: string[];
  /** Another agent the event ties to its task (an assignee, a delegate): a graph edge. */
  subjectAgentId?: string | null;
  payload: Record<string, unknown>;
}

/**
 * Appends one event in the caller's transaction (DESIGN.md convention 8). The sequence number
 * comes from the campaign row, locked until commit, so events commit in seq order and a watcher
 * that has seen seq N can never later find an N-1. Call it last in a transaction, after the
 * change it records: every writer takes task rows before the campaign row, never the reverse.
 */
export async function appendEvent(
  ex: Executor,
  campaignId: string,
  event: NewEvent,
  now: Date,
): Promise<{ seq: number; id: string }> {
  const [row] = await ex
    .update(campaigns)
    .set({ lastSeq: sql`${campaigns.lastSeq} + 1` })
    .where(eq(campaigns.id, campaignId))
    .returning({ seq: campaigns.lastSeq });
  if (!row) throw new Error(`campaign ${campaignId} vanished while appending to its ledger`);
  const id = newId('evt', now);
  await ex.insert(campaignEvents).values({
    campaignId,
    seq: row.seq,
    id,
    kind: event.kind,
    actorAgentId: 'agentId' in event.actor ? event.actor.agentId : null,
    actorOwnerId: 'ownerId' in event.actor ? event.actor.ownerId : null,
    actorRole: event.actor.role,
    taskId: event.taskId ?? null,
    messageId: event.messageId ?? null,
    addressedTo: event.addressedTo ?? null,
    isResult: event.isResult ?? false,
    evidenceIds: event.evidenceIds ?? [],
    subjectAgentId: event.subjectAgentId ?? null,
    payload: event.payload,
    createdAt: now,
  });
  // NOTIFY is transactional: watchers on every replica wake only once this commits.
  await ex.execute(sql`select pg_notify(${LEDGER_CHANNEL}, ${campaignId})`);
  return { seq: row.seq, id };
}
