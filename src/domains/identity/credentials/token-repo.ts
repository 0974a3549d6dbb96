import { and, eq, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../../storage/database.ts';
import { callerColumns, openSessionOfAgent, toAgent } from '../agent-repo.ts';
import { agents, mcpSessions, owners } from '../tables.ts';
import type { StandingColumn } from '../types.ts';
import { agentTokens, oauthGrants } from './tables.ts';

/** SQL for access and refresh tokens (agent_tokens). */

export async function insertToken(
  ex: Executor,
  row: {
    id: string;
    kind: 'ACCESS' | 'REFRESH';
    agentId: string;
    family: string;
    tokenHash: string;
    createdAt: Date;
    expiresAt: Date;
    audience: string;
  },
) {
  await ex.insert(agentTokens).values(row);
}

/** A refresh token with its row locked, so two exchanges of one token are decided one after the other. */
export async function lockRefreshToken(ex: Executor, tokenHash: string) {
  const [row] = await ex
    .select({
      id: agentTokens.id,
      kind: agentTokens.kind,
      agentId: agentTokens.agentId,
      family: agentTokens.family,
      expiresAt: agentTokens.expiresAt,
      spentAt: agentTokens.spentAt,
      retrySealed: agentTokens.retrySealed,
      revokedAt: agentTokens.revokedAt,
      agentStatus: agents.status,
    })
    .from(agentTokens)
    .innerJoin(agents, eq(agents.id, agentTokens.agentId))
    .where(eq(agentTokens.tokenHash, tokenHash))
    .for('update', { of: agentTokens });
  return row ?? null;
}

export async function spendRefreshToken(ex: Executor, id: string, retrySealed: string, now: Date) {
  await ex.update(agentTokens).set({ spentAt: now, retrySealed }).where(eq(agentTokens.id, id));
}

/** Forgets every sealed retry answer whose window has passed, whichever family it belongs to. */
export async function clearOldRetries(ex: Executor, before: Date) {
  await ex
    .update(agentTokens)
    .set({ retrySealed: null })
    .where(and(isNotNull(agentTokens.retrySealed), lt(agentTokens.spentAt, before)));
}

/** Revokes every token of a pairing (a refresh replay means one of them leaked). */
export async function revokeFamily(ex: Executor, family: string, now: Date) {
  await ex
    .update(agentTokens)
    .set({ revokedAt: now, retrySealed: null })
    .where(and(eq(agentTokens.family, family), isNull(agentTokens.revokedAt)));
}

/** Like the project key lookup: an access token, its agent, owner and (optionally) session, in one query. */
export function prepareAccessLookup(db: Db, standing: StandingColumn) {
  return db
    .select({
      keyId: agentTokens.id,
      kind: agentTokens.kind,
      expiresAt: agentTokens.expiresAt,
      revokedAt: agentTokens.revokedAt,
      lastUsedAt: agentTokens.lastUsedAt,
      audience: agentTokens.audience,
      /** The OAuth connection's approved scopes; null for a family that is no connection (a pairing). */
      grantScope: oauthGrants.scope,
      ...callerColumns(standing),
    })
    .from(agentTokens)
    .innerJoin(agents, eq(agents.id, agentTokens.agentId))
    .innerJoin(owners, eq(owners.id, agents.ownerId))
    .leftJoin(oauthGrants, eq(oauthGrants.id, agentTokens.family))
    .leftJoin(mcpSessions, openSessionOfAgent)
    .where(eq(agentTokens.tokenHash, sql.placeholder('tokenHash')))
    .prepare('cairn_access_lookup');
}

export type AccessLookup = ReturnType<typeof prepareAccessLookup>;

export async function lookupAccess(lookup: AccessLookup, tokenHash: string, sessionId: string | null) {
  const [row] = await lookup.execute({ tokenHash, sessionId: sessionId ?? '' });
  if (row?.kind !== 'ACCESS') return null;
  return { ...row, agent: toAgent(row.agent) };
}

export async function touchToken(ex: Executor, id: string, agentId: string, now: Date) {
  await ex.update(agentTokens).set({ lastUsedAt: now }).where(eq(agentTokens.id, id));
  await ex.update(agents).set({ lastSeenAt: now }).where(eq(agents.id, agentId));
}
