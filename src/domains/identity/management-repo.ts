import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { agentTokens, bootstrapTokens, projectKeys } from './credentials/tables.ts';
import { agents, mcpSessions } from './tables.ts';

/** SQL behind the owner's console pages: identities with their connections, keys, bootstrap tokens. */

export async function listOwnerAgents(ex: Executor, ownerId: string, now: Date) {
  // Spelled out: in a single-table query drizzle leaves columns unqualified, and inside these
  // subqueries an unqualified "id" would mean the subquery's own table.
  const agentId = sql.raw('"agents"."id"');
  return ex
    .select({
      id: agents.id,
      displayName: agents.displayName,
      runtime: agents.runtime,
      kind: agents.kind,
      mode: agents.mode,
      status: agents.status,
      createdAt: agents.createdAt,
      lastSeenAt: agents.lastSeenAt,
      openSessions: sql<number>`(select count(*)::int from ${mcpSessions}
        where ${mcpSessions.agentId} = ${agentId} and ${mcpSessions.endedAt} is null)`,
      activeKeys: sql<number>`(select count(*)::int from ${projectKeys}
        where ${projectKeys.agentId} = ${agentId} and ${projectKeys.revokedAt} is null
        and ${projectKeys.expiresAt} > ${now})`,
      activeTokens: sql<number>`(select count(*)::int from ${agentTokens}
        where ${agentTokens.agentId} = ${agentId} and ${agentTokens.revokedAt} is null
        and ${agentTokens.spentAt} is null and ${agentTokens.expiresAt} > ${now})`,
    })
    .from(agents)
    .where(eq(agents.ownerId, ownerId))
    .orderBy(desc(agents.createdAt));
}

export async function renameAgent(ex: Executor, agentId: string, displayName: string, now: Date) {
  await ex.update(agents).set({ displayName, updatedAt: now }).where(eq(agents.id, agentId));
}

export async function listAgentKeys(ex: Executor, agentId: string) {
  return ex
    .select({
      id: projectKeys.id,
      createdAt: projectKeys.createdAt,
      expiresAt: projectKeys.expiresAt,
      lastUsedAt: projectKeys.lastUsedAt,
      revokedAt: projectKeys.revokedAt,
    })
    .from(projectKeys)
    .where(eq(projectKeys.agentId, agentId))
    .orderBy(desc(projectKeys.createdAt));
}

/** The agent a key belongs to, for the ownership check before revoking it. */
export async function findKeyAgent(ex: Executor, keyId: string): Promise<string | null> {
  const [row] = await ex
    .select({ agentId: projectKeys.agentId })
    .from(projectKeys)
    .where(eq(projectKeys.id, keyId));
  return row?.agentId ?? null;
}

export async function revokeKeyById(ex: Executor, keyId: string, now: Date): Promise<boolean> {
  const rows = await ex
    .update(projectKeys)
    .set({ revokedAt: now })
    .where(and(eq(projectKeys.id, keyId), isNull(projectKeys.revokedAt)))
    .returning({ id: projectKeys.id });
  return rows.length === 1;
}

/** The agent behind a live bootstrap token, or null when it is unknown, revoked or expired. */
export async function findLiveBootstrap(ex: Executor, tokenHash: string, now: Date) {
  const [row] = await ex
    .select({ id: bootstrapTokens.id, agentId: bootstrapTokens.agentId })
    .from(bootstrapTokens)
    .where(
      and(
        eq(bootstrapTokens.tokenHash, tokenHash),
        isNull(bootstrapTokens.revokedAt),
        gt(bootstrapTokens.expiresAt, now),
      ),
    );
  return row ?? null;
}

export async function touchBootstrap(ex: Executor, id: string, now: Date) {
  await ex.update(bootstrapTokens).set({ lastUsedAt: now }).where(eq(bootstrapTokens.id, id));
}
