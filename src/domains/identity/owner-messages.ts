import { sql } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { wakeAgent } from './notifications.ts';
import { mcpNotifications, mcpSessions, ownerMessages } from './tables.ts';

/** A message from an owner as the agent receives it: labelled, so it is never mistaken for a tool's answer. */
export interface InboxMessage {
  message_id: string;
  label: 'OWNER_COMMENT';
  text: string;
  sent_at: string;
}

/**
 * Files an owner's message for an agent, in the caller's transaction: it waits in the agent's
 * inbox for its next tool call, and each open session gets a `notifications/message` about it
 * now. Sending starts no session.
 */
export async function sendOwnerMessage(
  ex: Executor,
  m: { ownerId: string; agentId: string; text: string; now: Date },
): Promise<InboxMessage> {
  const id = newId('omg', m.now);
  await ex
    .insert(ownerMessages)
    .values({ id, agentId: m.agentId, ownerId: m.ownerId, text: m.text, createdAt: m.now });
  const message: InboxMessage = {
    message_id: id,
    label: 'OWNER_COMMENT',
    text: m.text,
    sent_at: m.now.toISOString(),
  };
  const params = { level: 'notice', logger: 'cairn.owner', data: { type: 'OWNER_MESSAGE', ...message } };
  await ex.execute(sql`
    insert into ${mcpNotifications} (session_id, method, params, created_at)
    select ${mcpSessions.id}, 'notifications/message', ${JSON.stringify(params)}::jsonb, ${m.now}
    from ${mcpSessions}
    where ${mcpSessions.agentId} = ${m.agentId} and ${mcpSessions.endedAt} is null`);
  await wakeAgent(ex, m.agentId);
  return message;
}

/** At most this many messages ride with one tool result; the rest wait for the next call. */
const INBOX_BATCH = 10;

/** Takes the agent's oldest undelivered owner messages (a bounded batch); each is handed out once. */
export async function takeOwnerMessages(ex: Executor, agentId: string, now: Date): Promise<InboxMessage[]> {
  const rows = await ex
    .update(ownerMessages)
    .set({ deliveredAt: now })
    .where(
      sql`${ownerMessages.id} in (select ${ownerMessages.id} from ${ownerMessages}
        where ${ownerMessages.agentId} = ${agentId} and ${ownerMessages.deliveredAt} is null
        order by ${ownerMessages.id} limit ${INBOX_BATCH})`,
    )
    .returning({ id: ownerMessages.id, text: ownerMessages.text, createdAt: ownerMessages.createdAt });
  return rows
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map((r) => ({
      message_id: r.id,
      label: 'OWNER_COMMENT',
      text: r.text,
      sent_at: r.createdAt.toISOString(),
    }));
}
