import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Executor } from '../../storage/database.ts';
import { agentTokens, projectKeys } from './credentials/tables.ts';
import { agents, mcpNotifications, mcpSessions, ownerMessages, owners } from './tables.ts';
import type { AboutYou, Agent, StandingColumn } from './types.ts';

/** SQL for the identity area's own tables: owners, agents, project_keys. */

export const agentColumns = {
  id: agents.id,
  ownerId: agents.ownerId,
  ownerEmail: owners.email,
  displayName: agents.displayName,
  runtime: agents.runtime,
  kind: agents.kind,
  mode: agents.mode,
  status: agents.status,
  suspendReason: agents.suspendReason,
  about: agents.about,
  matchingEnabled: agents.matchingEnabled,
  matchingPublic: agents.matchingPublic,
  arenaEnabled: agents.arenaEnabled,
  guestRequestId: agents.guestRequestId,
  guestCampaignId: agents.guestCampaignId,
  createdAt: agents.createdAt,
  lastSeenAt: agents.lastSeenAt,
};

type AgentRow = Omit<Agent, 'about'> & { about: Record<string, unknown> };
export const toAgent = (row: AgentRow): Agent => ({ ...row, about: row.about as AboutYou });

export async function insertOwner(
  ex: Executor,
  row: { id: string; email: string; passwordHash: string; createdAt: Date },
): Promise<boolean> {
  const inserted = await ex.insert(owners).values(row).onConflictDoNothing().returning({ id: owners.id });
  return inserted.length === 1;
}

export async function findOwnerByEmail(ex: Executor, email: string) {
  const [row] = await ex
    .select({ id: owners.id, email: owners.email })
    .from(owners)
    .where(sql`lower(${owners.email}) = lower(${email})`);
  return row ?? null;
}

export async function findOwner(ex: Executor, ownerId: string) {
  const [row] = await ex
    .select({ id: owners.id, email: owners.email })
    .from(owners)
    .where(eq(owners.id, ownerId));
  return row ?? null;
}

/** The owner who signed up first: the one who set the instance up. */
export async function firstOwnerId(ex: Executor): Promise<string | null> {
  const [row] = await ex
    .select({ id: owners.id })
    .from(owners)
    .orderBy(asc(owners.createdAt), asc(owners.id))
    .limit(1);
  return row?.id ?? null;
}

export async function insertAgent(
  ex: Executor,
  row: {
    id: string;
    ownerId: string;
    displayName: string;
    runtime: string;
    kind: Agent['kind'];
    createdAt: Date;
    guestRequestId?: string;
    guestCampaignId?: string;
  },
): Promise<void> {
  await ex
    .insert(agents)
    .values({ ...row, mode: 'NONE', status: 'ACTIVE', about: {}, updatedAt: row.createdAt });
}

export async function findAgent(ex: Executor, agentId: string): Promise<Agent | null> {
  const [row] = await ex
    .select(agentColumns)
    .from(agents)
    .innerJoin(owners, eq(owners.id, agents.ownerId))
    .where(eq(agents.id, agentId));
  return row ? toAgent(row) : null;
}

const agentFacts = {
  id: agents.id,
  ownerId: agents.ownerId,
  displayName: agents.displayName,
  runtime: agents.runtime,
  status: agents.status,
  mode: agents.mode,
  about: agents.about,
};

/** The active agents of one owner (whom that owner's coordinators may invite directly), newest first. */
export async function describeOwnerAgents(ex: Executor, ownerId: string) {
  return ex
    .select(agentFacts)
    .from(agents)
    .where(and(eq(agents.ownerId, ownerId), eq(agents.status, 'ACTIVE')))
    .orderBy(sql`${agents.createdAt} desc`)
    .limit(200);
}

/** Public facts of agents by id (campaign directories and invitations); unknown ids are left out. */
export async function describeAgents(ex: Executor, agentIds: string[]) {
  if (agentIds.length === 0) return [];
  return ex.select(agentFacts).from(agents).where(inArray(agents.id, agentIds));
}

export async function updateAgentMode(ex: Executor, agentId: string, mode: Agent['mode'], now: Date) {
  await ex.update(agents).set({ mode, updatedAt: now }).where(eq(agents.id, agentId));
}

export async function updateAgentStatus(ex: Executor, agentId: string, status: Agent['status'], now: Date) {
  await ex.update(agents).set({ status, updatedAt: now }).where(eq(agents.id, agentId));
}

/** Suspends (with the reason) or lifts a suspension; the mode is left as it is. */
export async function updateSuspension(
  ex: Executor,
  agentId: string,
  to: { status: 'SUSPENDED' | 'ACTIVE'; reason: string | null },
  now: Date,
) {
  await ex
    .update(agents)
    .set({
      status: to.status,
      suspendReason: to.reason,
      suspendedAt: to.status === 'SUSPENDED' ? now : null,
      updatedAt: now,
    })
    .where(and(eq(agents.id, agentId), sql`${agents.status} <> 'REVOKED'`));
}

/** The agent's claims, with its row locked until the transaction ends, so concurrent updates merge in turn. */
export async function lockAgentAbout(ex: Executor, agentId: string): Promise<AboutYou | null> {
  const [row] = await ex
    .select({ about: agents.about })
    .from(agents)
    .where(eq(agents.id, agentId))
    .for('update');
  return row ? (row.about as AboutYou) : null;
}

export async function updateAgentAbout(ex: Executor, agentId: string, about: AboutYou, now: Date) {
  await ex
    .update(agents)
    .set({ about: about as Record<string, unknown>, updatedAt: now })
    .where(eq(agents.id, agentId));
}

export async function insertProjectKey(
  ex: Executor,
  row: { id: string; agentId: string; tokenHash: string; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await ex.insert(projectKeys).values(row);
}

/**
 * What every credential lookup selects besides the credential: the agent (with its owner's
 * email), the session named by the `sessionId` placeholder if it is open and the agent's, and
 * whether notifications wait for that session.
 */
export const callerColumns = (standing: StandingColumn) => ({
  agent: agentColumns,
  standing,
  sessionId: mcpSessions.id,
  sessionSeenAt: mcpSessions.lastSeenAt,
  notificationsWaiting: sql<boolean>`exists (select 1 from ${mcpNotifications}
    where ${mcpNotifications.sessionId} = ${mcpSessions.id} and ${mcpNotifications.deliveredAt} is null)`,
  // Named in full: inside this subquery a bare "agent_id" would be owner_messages' own column.
  ownerMessagesWaiting: sql<boolean>`exists (select 1 from ${ownerMessages}
    where ${ownerMessages.agentId} = ${sql.raw('"agents"."id"')} and ${ownerMessages.deliveredAt} is null)`,
});

/** The join condition for `callerColumns`' session. */
export const openSessionOfAgent = and(
  eq(mcpSessions.id, sql.placeholder('sessionId')),
  eq(mcpSessions.agentId, agents.id),
  isNull(mcpSessions.endedAt),
);

/**
 * Authentication in one round trip: the key, its agent, the agent's owner and, when a session id
 * is given, that agent's open MCP session. Prepared once per database, because it runs on every
 * MCP request.
 */
export function prepareCredentialLookup(db: Db, standing: StandingColumn) {
  return db
    .select({
      keyId: projectKeys.id,
      expiresAt: projectKeys.expiresAt,
      revokedAt: projectKeys.revokedAt,
      lastUsedAt: projectKeys.lastUsedAt,
      ...callerColumns(standing),
    })
    .from(projectKeys)
    .innerJoin(agents, eq(agents.id, projectKeys.agentId))
    .innerJoin(owners, eq(owners.id, agents.ownerId))
    .leftJoin(mcpSessions, openSessionOfAgent)
    .where(eq(projectKeys.tokenHash, sql.placeholder('tokenHash')))
    .prepare('cairn_credential_lookup');
}

export type CredentialLookup = ReturnType<typeof prepareCredentialLookup>;

export async function lookupCredential(
  lookup: CredentialLookup,
  tokenHash: string,
  sessionId: string | null,
) {
  const [row] = await lookup.execute({ tokenHash, sessionId: sessionId ?? '' });
  return row ? { ...row, agent: toAgent(row.agent) } : null;
}

/** Marks a key revoked; returns it and its agent, or null when no unrevoked key has that hash. */
export async function revokeProjectKeyByHash(
  ex: Executor,
  tokenHash: string,
  now: Date,
): Promise<{ id: string; agentId: string } | null> {
  const [row] = await ex
    .update(projectKeys)
    .set({ revokedAt: now })
    .where(and(eq(projectKeys.tokenHash, tokenHash), isNull(projectKeys.revokedAt)))
    .returning({ id: projectKeys.id, agentId: projectKeys.agentId });
  return row ?? null;
}

/** Records use of a key and activity of its agent. */
export async function touchProjectKey(ex: Executor, keyId: string, agentId: string, now: Date) {
  await ex.update(projectKeys).set({ lastUsedAt: now }).where(eq(projectKeys.id, keyId));
  await ex.update(agents).set({ lastSeenAt: now }).where(eq(agents.id, agentId));
}

export async function countIdentities(ex: Executor) {
  const [row] = await ex
    .select({
      owners: sql<number>`(select count(*) from ${owners})::int`,
      agents: sql<number>`count(*)::int`,
      active: sql<number>`(count(*) filter (where ${and(eq(agents.status, 'ACTIVE'), sql`${agents.mode} <> 'NONE'`)}))::int`,
    })
    .from(agents);
  return row ?? { owners: 0, agents: 0, active: 0 };
}

/**
 * Whether a held-open stream may go on: its session is open, its identity not revoked, and the
 * credential it was opened with still valid (not revoked, not expired).
 */
export async function streamStillAuthorized(
  ex: Executor,
  credential: { kind: 'project_key' | 'access_token'; id: string },
  sessionId: string,
  now: Date,
): Promise<boolean> {
  const credentialLive =
    credential.kind === 'project_key'
      ? sql`exists (select 1 from ${projectKeys} where ${projectKeys.id} = ${credential.id}
          and ${projectKeys.revokedAt} is null and ${projectKeys.expiresAt} > ${now})`
      : sql`exists (select 1 from ${agentTokens} where ${agentTokens.id} = ${credential.id}
          and ${agentTokens.revokedAt} is null and ${agentTokens.expiresAt} > ${now})`;
  const rows = await ex
    .select({ ok: sql<number>`1` })
    .from(mcpSessions)
    .innerJoin(agents, eq(agents.id, mcpSessions.agentId))
    .where(
      and(
        eq(mcpSessions.id, sessionId),
        isNull(mcpSessions.endedAt),
        sql`${agents.status} <> 'REVOKED'`,
        credentialLive,
      ),
    );
  return rows.length === 1;
}
