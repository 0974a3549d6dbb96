import { type SQLWrapper, sql } from 'drizzle-orm';
import { newId } from '../../../kernel/ids.ts';
import type { Executor, TransactionEnd } from '../../../storage/database.ts';
import { executeNamed } from '../../../storage/prepared.ts';
import { CommitValue } from '../../operations/index.ts';
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
 *
 * One statement (docs/performance.md, "Round trips"): the seq's update, the event's insert and
 * the NOTIFY that wakes watchers travel together. NOTIFY is transactional: watchers on every
 * replica wake only once this commits.
 *
 * `along`: writes the event records (drizzle inserts, not awaited), sent in the same statement as
 * data-modifying CTEs, so a change and its event cost one round trip together (task_claim's lease
 * and history entry). PostgreSQL runs every one of them whether or not anything reads it, after
 * the campaign row is taken, so `along` may only write rows the caller has already locked (the
 * task row, by its UPDATE or lock) and never the campaign row itself (two changes to one row in
 * one statement: one would be lost).
 */
export async function appendEvent(
  ex: Executor,
  campaignId: string,
  event: NewEvent,
  now: Date,
  along: SQLWrapper[] = [],
): Promise<{ seq: number; id: string }> {
  const id = newId('evt', now);
  const result = (await executeNamed(ex, eventStatement(campaignId, id, event, now, along))) as unknown as {
    rows: Array<{ seq: string | number }>;
  };
  const row = result.rows[0];
  if (!row) throw new Error(`campaign ${campaignId} vanished while appending to its ledger`);
  return { seq: Number(row.seq), id };
}

/**
 * appendEvent as the closing statement of a mutation, sent with its COMMIT (the runner's `end`,
 * storage/transaction-end.ts). The campaign's counter is then held only while PostgreSQL runs
 * the event and commits: every other writer of the campaign waits for the commit alone, never for
 * a trip back to Node (docs/performance.md, "The tail of a mutation"). Nothing may follow it in
 * the transaction but other closing statements, so it suits a change whose event is its last
 * write (a message). The seq is not known until then: it comes as a CommitValue, which the
 * stored answer takes from the event row.
 */
export function appendEventAtCommit(
  end: TransactionEnd,
  campaignId: string,
  event: NewEvent,
  now: Date,
  along: SQLWrapper[] = [],
): { seq: CommitValue; id: string } {
  const id = newId('evt', now);
  end.sendWithCommit(eventStatement(campaignId, id, event, now, along));
  return {
    seq: new CommitValue(
      sql`(select ${campaignEvents.seq} from ${campaignEvents} where ${campaignEvents.id} = ${id})`,
    ),
    id,
  };
}

/** The seq's update, the event's insert (with `along` before them) and the NOTIFY, as one statement. */
function eventStatement(campaignId: string, id: string, event: NewEvent, now: Date, along: SQLWrapper[]) {
  const before = along.map((w, i) => sql`${sql.raw(`along_${i}`)} as (${w.getSQL()}), `);
  return sql`
    with ${sql.join(before)}next as (
      update ${campaigns} set last_seq = last_seq + 1 where id = ${campaignId} returning last_seq
    ), added as (
      insert into ${campaignEvents} (
        campaign_id, seq, id, kind, actor_agent_id, actor_owner_id, actor_role, task_id, message_id,
        addressed_to, is_result, evidence_ids, subject_agent_id, payload, created_at
      )
      select ${campaignId}, next.last_seq, ${id}, ${event.kind},
        ${'agentId' in event.actor ? event.actor.agentId : null},
        ${'ownerId' in event.actor ? event.actor.ownerId : null},
        ${event.actor.role}, ${event.taskId ?? null}, ${event.messageId ?? null},
        ${event.addressedTo ?? null}, ${event.isResult ?? false},
        ${JSON.stringify(event.evidenceIds ?? [])}::jsonb, ${event.subjectAgentId ?? null},
        ${JSON.stringify(event.payload)}::jsonb, ${now.toISOString()}::timestamptz
      from next
      returning seq
    )
    select seq, pg_notify(${LEDGER_CHANNEL}, ${campaignId}) from added`;
}
