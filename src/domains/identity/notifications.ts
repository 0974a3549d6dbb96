import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { mcpNotifications, mcpSessions } from './tables.ts';

/** The channel replicas LISTEN on; the payload is the agent id whose sessions have news. */
export const NOTIFY_CHANNEL = 'cairn_mcp';

/**
 * Queues `notifications/tools/list_changed` for every open session of an agent, in the caller's
 * transaction, and wakes every replica's open streams once it commits (NOTIFY is transactional).
 */
export async function enqueueToolsChanged(ex: Executor, agentId: string, now: Date): Promise<void> {
  await ex.execute(sql`
    insert into ${mcpNotifications} (session_id, method, params, created_at)
    select ${mcpSessions.id}, 'notifications/tools/list_changed', '{}'::jsonb, ${now}
    from ${mcpSessions}
    where ${mcpSessions.agentId} = ${agentId} and ${mcpSessions.endedAt} is null`);
  await wakeAgent(ex, agentId);
}

/** Wakes every replica's streams of an agent, e.g. so they notice a revocation at once. */
export async function wakeAgent(ex: Executor, agentId: string): Promise<void> {
  await ex.execute(sql`select pg_notify(${NOTIFY_CHANNEL}, ${agentId})`);
}

export interface PendingNotification {
  method: string;
  params: Record<string, unknown>;
}

/** Takes (marks delivered and returns) a session's queued notifications, oldest first; each goes out once. */
export async function takeNotifications(
  ex: Executor,
  sessionId: string,
  now: Date,
): Promise<PendingNotification[]> {
  const rows = await ex
    .update(mcpNotifications)
    .set({ deliveredAt: now })
    .where(and(eq(mcpNotifications.sessionId, sessionId), isNull(mcpNotifications.deliveredAt)))
    .returning({ id: mcpNotifications.id, method: mcpNotifications.method, params: mcpNotifications.params });
  return rows.sort((a, b) => a.id - b.id).map(({ method, params }) => ({ method, params }));
}
