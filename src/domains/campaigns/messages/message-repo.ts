import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { messagesVisible, tasksVisible, type Viewer } from '../audience.ts';
import type { AlongRow } from '../core/ledger.ts';
import { campaignMessages, tasks } from '../tables.ts';

/** SQL of campaign messages. Every read goes through audience.ts, so a mode hides the same rows everywhere. */

export type MessageRow = typeof campaignMessages.$inferSelect;

/** The message's insert, not yet sent: awaited alone, or sent with its ledger event (appendEvent's `along`). */
export function messageInsert(ex: Executor, row: MessageRow) {
  return ex.insert(campaignMessages).values(row);
}

/** The message as a row inserted with its ledger event (ledger.ts `appendEventAtCommit`). */
export function messageAlong(row: MessageRow): AlongRow {
  return { table: campaignMessages, row };
}

/** The message if `viewer` may see it; null when it does not exist for them. */
export async function findVisibleMessage(
  ex: Executor,
  viewer: Viewer,
  id: string,
): Promise<MessageRow | null> {
  const [row] = await ex
    .select()
    .from(campaignMessages)
    .where(and(messagesVisible(viewer), eq(campaignMessages.id, id)));
  return row ?? null;
}

/**
 * A proposal's row locked until the transaction ends: responses and a decision race for its
 * status. Message rows are taken before the campaign row (appendEvent), like task rows.
 */
export async function lockMessage(ex: Executor, id: string): Promise<MessageRow | null> {
  const [row] = await ex.select().from(campaignMessages).where(eq(campaignMessages.id, id)).for('update');
  return row ?? null;
}

/** Merges keys into a message's data (a proposal's status); its content never changes. */
export async function mergeMessageData(ex: Executor, id: string, data: Record<string, unknown>) {
  await ex
    .update(campaignMessages)
    .set({ data: sql`${campaignMessages.data} || ${JSON.stringify(data)}::jsonb` })
    .where(eq(campaignMessages.id, id));
}

/** Whether the task exists in the viewer's campaign and the viewer may see it. */
export async function taskVisibleTo(ex: Executor, viewer: Viewer, taskId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: tasks.id })
    .from(tasks)
    .where(and(tasksVisible(viewer), eq(tasks.id, taskId)));
  return row !== undefined;
}

/**
 * Visible messages newest first, continuing below the message `before` (exclusive); one more
 * row than `limit`, so the caller can tell whether older visible messages remain.
 */
export async function listVisibleMessages(ex: Executor, viewer: Viewer, limit: number, before?: string) {
  const below = before
    ? sql`(${campaignMessages.createdAt}, ${campaignMessages.id}) <
        (select p.created_at, p.id from ${campaignMessages} p where p.id = ${before})`
    : undefined;
  return ex
    .select()
    .from(campaignMessages)
    .where(and(messagesVisible(viewer), below))
    .orderBy(desc(campaignMessages.createdAt), desc(campaignMessages.id))
    .limit(limit + 1);
}
