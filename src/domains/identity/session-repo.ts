import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { mcpSessions } from './tables.ts';

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
