import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { mcpSessions, mcpSubscriptions } from './tables.ts';

export async function insertSession(
  ex: Executor,
  row: {
    id: string;
    agentId: string;
    protocolVersion: string;
    clientName: string | null;
    clientVersion: string | null;
    now: Date;
  },
): Promise<void> {
  const { now, ...rest } = row;
  await ex.insert(mcpSessions).values({ ...rest, createdAt: now, lastSeenAt: now });
}

export async function touchSession(ex: Executor, id: string, now: Date): Promise<void> {
  await ex.update(mcpSessions).set({ lastSeenAt: now }).where(eq(mcpSessions.id, id));
}

export async function endSession(ex: Executor, id: string, agentId: string, now: Date): Promise<boolean> {
  const rows = await ex
    .update(mcpSessions)
    .set({ endedAt: now })
    .where(and(eq(mcpSessions.id, id), eq(mcpSessions.agentId, agentId), isNull(mcpSessions.endedAt)))
    .returning({ id: mcpSessions.id });
  return rows.length === 1;
}

export async function countRecentSessions(ex: Executor, since: Date): Promise<number> {
  const [row] = await ex
    .select({ n: sql<number>`count(*)::int` })
    .from(mcpSessions)
    .where(sql`${mcpSessions.lastSeenAt} >= ${since}`);
  return row?.n ?? 0;
}

/** The client an open session said it was at initialize (name and version from clientInfo). */
export async function findSessionClient(ex: Executor, id: string, agentId: string) {
  const [row] = await ex
    .select({ name: mcpSessions.clientName, version: mcpSessions.clientVersion })
    .from(mcpSessions)
    .where(and(eq(mcpSessions.id, id), eq(mcpSessions.agentId, agentId)));
  return row ?? null;
}

/** The URIs a session follows (resources/subscribe), oldest first. */
export async function subscriptionsOf(ex: Executor, sessionId: string): Promise<string[]> {
  const rows = await ex
    .select({ uri: mcpSubscriptions.uri })
    .from(mcpSubscriptions)
    .where(eq(mcpSubscriptions.sessionId, sessionId))
    .orderBy(mcpSubscriptions.createdAt);
  return rows.map((r) => r.uri);
}

/**
 * Adds a URI to an open session of this agent, within `max` per session (counted under the
 * session row's lock, so two subscribes at once cannot pass it together). Answers whether it is
 * followed now ('added' or 'already'), 'full', or 'no-session'.
 */
export async function addSubscription(
  ex: Executor,
  sessionId: string,
  agentId: string,
  uri: string,
  max: number,
  now: Date,
): Promise<'added' | 'already' | 'full' | 'no-session'> {
  const [session] = await ex
    .select({ id: mcpSessions.id })
    .from(mcpSessions)
    .where(and(eq(mcpSessions.id, sessionId), eq(mcpSessions.agentId, agentId), isNull(mcpSessions.endedAt)))
    .for('update');
  if (!session) return 'no-session';
  const held = await subscriptionsOf(ex, sessionId);
  if (held.includes(uri)) return 'already';
  if (held.length >= max) return 'full';
  await ex.insert(mcpSubscriptions).values({ sessionId, uri, createdAt: now });
  return 'added';
}

export async function removeSubscription(ex: Executor, sessionId: string, uri: string): Promise<void> {
  await ex
    .delete(mcpSubscriptions)
    .where(and(eq(mcpSubscriptions.sessionId, sessionId), eq(mcpSubscriptions.uri, uri)));
}
