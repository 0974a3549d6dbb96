import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { wakeAgent } from '../notifications.ts';
import { agents } from '../tables.ts';
import { agentTokens, oauthClients, oauthCodes, oauthGrants, oauthRequests } from './tables.ts';

/** SQL of native OAuth: registered clients, consent requests, connections (grants) and codes. */

export type ClientRow = typeof oauthClients.$inferSelect;
export type RequestRow = typeof oauthRequests.$inferSelect;
export type GrantRow = typeof oauthGrants.$inferSelect;

export async function insertClient(ex: Executor, row: typeof oauthClients.$inferInsert) {
  await ex.insert(oauthClients).values(row);
}

export async function findClient(ex: Executor, id: string): Promise<ClientRow | null> {
  const [row] = await ex.select().from(oauthClients).where(eq(oauthClients.id, id));
  return row ?? null;
}

/**
 * Keeps a client read from its metadata document: a new row, or the row of the same URL brought
 * up to date (name, redirect URIs, grants, freshness). When it was first seen and last used stay.
 */
export async function keepDocumentClient(
  ex: Executor,
  row: typeof oauthClients.$inferInsert,
): Promise<ClientRow> {
  const [kept] = await ex
    .insert(oauthClients)
    .values(row)
    .onConflictDoUpdate({
      target: oauthClients.id,
      set: {
        clientName: row.clientName,
        redirectUris: row.redirectUris,
        grantTypes: row.grantTypes,
        tokenEndpointAuthMethod: row.tokenEndpointAuthMethod,
        metadata: row.metadata,
      },
    })
    .returning();
  return kept!;
}

export async function touchClient(ex: Executor, id: string, now: Date) {
  await ex.update(oauthClients).set({ lastUsedAt: now }).where(eq(oauthClients.id, id));
}

export async function insertRequest(ex: Executor, row: typeof oauthRequests.$inferInsert) {
  await ex.insert(oauthRequests).values(row);
}

/** A request with its client, locked when deciding so two decisions cannot both win. */
export async function findRequest(ex: Executor, id: string, lock = false) {
  const query = ex
    .select({ request: oauthRequests, client: oauthClients })
    .from(oauthRequests)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthRequests.clientId))
    .where(eq(oauthRequests.id, id));
  const [row] = lock ? await query.for('update', { of: oauthRequests }) : await query;
  return row ?? null;
}

export async function decideRequest(
  ex: Executor,
  id: string,
  set: { status: 'APPROVED' | 'DECLINED'; ownerId: string; grantId: string | null; decidedAt: Date },
) {
  await ex.update(oauthRequests).set(set).where(eq(oauthRequests.id, id));
}

/** Whether any owner ever approved this client (its redirect URIs are then trusted with errors). */
export async function clientHasGrant(ex: Executor, clientId: string): Promise<boolean> {
  const [row] = await ex
    .select({ id: oauthGrants.id })
    .from(oauthGrants)
    .where(eq(oauthGrants.clientId, clientId))
    .limit(1);
  return row !== undefined;
}

export async function insertGrant(ex: Executor, row: typeof oauthGrants.$inferInsert) {
  await ex.insert(oauthGrants).values(row);
}

export async function findGrant(ex: Executor, id: string): Promise<GrantRow | null> {
  const [row] = await ex.select().from(oauthGrants).where(eq(oauthGrants.id, id));
  return row ?? null;
}

export async function touchGrant(ex: Executor, id: string, now: Date) {
  await ex.update(oauthGrants).set({ lastUsedAt: now }).where(eq(oauthGrants.id, id));
}

/** Ends a connection: the grant, every token issued under it, and the identity made for it. */
export async function revokeGrant(ex: Executor, grant: GrantRow, now: Date) {
  await ex
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.id, grant.id), isNull(oauthGrants.revokedAt)));
  await ex
    .update(agentTokens)
    .set({ revokedAt: now, retrySealed: null })
    .where(and(eq(agentTokens.family, grant.id), isNull(agentTokens.revokedAt)));
  await ex
    .update(agents)
    .set({ status: 'REVOKED', updatedAt: now })
    .where(and(eq(agents.id, grant.agentId), sql`${agents.status} <> 'REVOKED'`));
  // Its streams, on whichever replica holds them, close at once.
  await wakeAgent(ex, grant.agentId);
}

/** Marks the connections of an identity revoked when the identity itself is revoked. */
export async function revokeGrantsOfAgent(ex: Executor, agentId: string, now: Date) {
  await ex
    .update(oauthGrants)
    .set({ revokedAt: now })
    .where(and(eq(oauthGrants.agentId, agentId), isNull(oauthGrants.revokedAt)));
}

/** An owner's connections, newest first, with client and identity names. */
export async function listGrants(ex: Executor, ownerId: string) {
  return ex
    .select({
      grant: oauthGrants,
      clientName: oauthClients.clientName,
      agentName: agents.displayName,
      agentLastSeenAt: agents.lastSeenAt,
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientId))
    .innerJoin(agents, eq(agents.id, oauthGrants.agentId))
    .where(eq(oauthGrants.ownerId, ownerId))
    .orderBy(desc(oauthGrants.approvedAt))
    .limit(200);
}

export async function insertCode(ex: Executor, row: typeof oauthCodes.$inferInsert) {
  await ex.insert(oauthCodes).values(row);
}

/** A code with its row locked: a code is exchanged once, and a second try must see the first. */
export async function lockCode(ex: Executor, codeHash: string) {
  const [row] = await ex.select().from(oauthCodes).where(eq(oauthCodes.codeHash, codeHash)).for('update');
  return row ?? null;
}

export async function spendCode(ex: Executor, codeHash: string, now: Date) {
  await ex.update(oauthCodes).set({ usedAt: now }).where(eq(oauthCodes.codeHash, codeHash));
}

/** The token row of a presented token (for revocation), with the family it belongs to. */
export async function findTokenByHash(ex: Executor, tokenHash: string) {
  const [row] = await ex
    .select({
      id: agentTokens.id,
      kind: agentTokens.kind,
      family: agentTokens.family,
      agentId: agentTokens.agentId,
    })
    .from(agentTokens)
    .where(eq(agentTokens.tokenHash, tokenHash));
  return row ?? null;
}

export async function revokeToken(ex: Executor, id: string, now: Date) {
  await ex
    .update(agentTokens)
    .set({ revokedAt: now, retrySealed: null })
    .where(and(eq(agentTokens.id, id), isNull(agentTokens.revokedAt)));
}
