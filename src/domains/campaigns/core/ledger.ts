import { getTableName, type SQLWrapper, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { CommitValue } from '../../../framework/index.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor, TransactionEnd } from '../../../storage/database.ts';
import { executeNamed } from '../../../storage/prepared.ts';
import { statementTemplate } from '../../../storage/statement-template.ts';
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
  const result = (await executeNamed(
    ex,
    eventStatement(eventValues(campaignId, id, event, now), along),
  )) as unknown as {
    rows: Array<{ seq: string | number }>;
  };
  const row = result.rows[0];
  if (!row) throw new Error(`campaign ${campaignId} vanished while appending to its ledger`);
  return { seq: Number(row.seq), id };
}

/** A row inserted with an event sent with the COMMIT: every column of `row` is written. */
export interface AlongRow {
  table: PgTable;
  row: Record<string, unknown>;
}

/** The same rows as drizzle inserts, for an event appended now (`appendEvent`'s `along`). */
export function alongInserts(ex: Executor, along: AlongRow[]): SQLWrapper[] {
  return along.map(({ table, row }) => ex.insert(table).values(row as never));
}

/**
 * appendEvent as the closing statement of a mutation, sent with its COMMIT (the runner's `end`,
 * storage/transaction-end.ts). The campaign's counter is then held only while PostgreSQL runs
 * the event and commits: every other writer of the campaign waits for the commit alone, never for
 * a trip back to Node (docs/performance.md, "The tail of a mutation"). Nothing may follow it in
 * the transaction but other closing statements, so it suits a change whose event is its last
 * write (a message). The seq is not known until then: it comes as a CommitValue, which the
 * stored answer takes from the event row.
 *
 * `along`: rows inserted in the same statement (the message). The statement is built once for
 * each set of tables and columns and filled in per call (storage/statement-template.ts).
 */
export function appendEventAtCommit(
  ex: Executor,
  end: TransactionEnd,
  campaignId: string,
  event: NewEvent,
  now: Date,
  along: AlongRow[] = [],
): { seq: CommitValue; id: string } {
  const id = newId('evt', now);
  const values: Record<string, unknown> = eventValues(campaignId, id, event, now);
  along.forEach(({ row }, i) => {
    for (const [column, value] of Object.entries(row)) values[`along_${i}_${column}`] = value;
  });
  end.sendWithCommit(eventTemplate(along)(ex, values));
  return {
    seq: new CommitValue(
      'event-seq',
      (eventId) =>
        sql`(select ${campaignEvents.seq} from ${campaignEvents} where ${campaignEvents.id} = ${eventId})`,
      id,
    ),
    id,
  };
}

const eventTemplates = new Map<string, ReturnType<typeof statementTemplate<Executor>>>();

/** The event statement with `along`'s rows, as a template: one for each set of tables and columns. */
function eventTemplate(along: AlongRow[]) {
  const shape = along
    .map(({ table, row }) => `${getTableName(table)}(${Object.keys(row).join(',')})`)
    .join(';');
  let template = eventTemplates.get(shape);
  if (!template) {
    template = statementTemplate((ex: Executor) => {
      const placeholders = Object.fromEntries(EVENT_FIELDS.map((f) => [f, sql.placeholder(f)]));
      const inserts = along.map(({ table, row }, i) =>
        ex
          .insert(table)
          .values(
            Object.fromEntries(Object.keys(row).map((c) => [c, sql.placeholder(`along_${i}_${c}`)])) as never,
          ),
      );
      return eventStatement(placeholders as EventValues, inserts);
    });
    eventTemplates.set(shape, template);
  }
  return template;
}

const EVENT_FIELDS = [
  'campaignId',
  'id',
  'kind',
  'actorAgentId',
  'actorOwnerId',
  'actorRole',
  'taskId',
  'messageId',
  'addressedTo',
  'isResult',
  'evidenceIds',
  'subjectAgentId',
  'payload',
  'createdAt',
] as const;

/** An event's columns as the statement takes them: values, or placeholders in a template. */
type EventValues = Record<(typeof EVENT_FIELDS)[number], unknown>;

function eventValues(campaignId: string, id: string, event: NewEvent, now: Date): EventValues {
  return {
    campaignId,
    id,
    kind: event.kind,
    actorAgentId: 'agentId' in event.actor ? event.actor.agentId : null,
    actorOwnerId: 'ownerId' in event.actor ? event.actor.ownerId : null,
    actorRole: event.actor.role,
    taskId: event.taskId ?? null,
    messageId: event.messageId ?? null,
    addressedTo: event.addressedTo ?? null,
    isResult: event.isResult ?? false,
    evidenceIds: JSON.stringify(event.evidenceIds ?? []),
    subjectAgentId: event.subjectAgentId ?? null,
    payload: JSON.stringify(event.payload),
    createdAt: now.toISOString(),
  };
}

/** The seq's update, the event's insert (with `along` before them) and the NOTIFY, as one statement. */
function eventStatement(v: EventValues, along: SQLWrapper[]) {
  const before = along.map((w, i) => sql`${sql.raw(`along_${i}`)} as (${w.getSQL()}), `);
  return sql`
    with ${sql.join(before)}next as (
      update ${campaigns} set last_seq = last_seq + 1 where id = ${v.campaignId} returning last_seq
    ), added as (
      insert into ${campaignEvents} (
        campaign_id, seq, id, kind, actor_agent_id, actor_owner_id, actor_role, task_id, message_id,
        addressed_to, is_result, evidence_ids, subject_agent_id, payload, created_at
      )
      select ${v.campaignId}, next.last_seq, ${v.id}, ${v.kind}, ${v.actorAgentId}, ${v.actorOwnerId},
        ${v.actorRole}, ${v.taskId}, ${v.messageId}, ${v.addressedTo}, ${v.isResult},
        ${v.evidenceIds}::jsonb, ${v.subjectAgentId}, ${v.payload}::jsonb, ${v.createdAt}::timestamptz
      from next
      returning seq
    )
    select seq, pg_notify(${LEDGER_CHANNEL}, ${v.campaignId}) from added`;
}
