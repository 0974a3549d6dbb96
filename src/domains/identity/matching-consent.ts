import { eq, type SQL, sql } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { findAgent } from './agent-repo.ts';
import { recordAudit } from './audit.ts';
import { guestBound } from './management.ts';
import { enqueueToolsChanged } from './notifications.ts';
import { agents } from './tables.ts';
import type { Agent } from './types.ts';

/**
 * The owner's consent to matching, per identity (SPEC Permissions 10): the matching tools appear
 * only once it is on, and turning it on or off reaches the identity's open sessions as
 * notifications/tools/list_changed. What matching does with a withdrawn consent (its profile and
 * open requests) is the matching area's, in the same transaction.
 */

export interface MatchingConsent {
  enabled: boolean;
  /** Whether its profile may appear on GET /v1/public/matching/intents. */
  public: boolean;
}

export async function setMatchingConsent(
  ex: Executor,
  ownerId: string,
  agentId: string,
  consent: MatchingConsent,
  now: Date,
): Promise<{ agent: Agent; changed: boolean }> {
  const agent = await findAgent(ex, agentId);
  // Someone else's identity is reported exactly like a missing one.
  if (!agent || agent.ownerId !== ownerId) {
    throw new DomainError('NOT_FOUND', 'No such identity.', { agent_id: agentId });
  }
  if (agent.guestRequestId && consent.enabled) throw guestBound(agentId);
  if (agent.status === 'REVOKED') {
    throw new DomainError('CONFLICT', 'This identity is revoked; matching cannot be turned on for it.', {
      agent_id: agentId,
    });
  }
  const changed = agent.matchingEnabled !== consent.enabled || agent.matchingPublic !== consent.public;
  if (changed) {
    await ex
      .update(agents)
      .set({ matchingEnabled: consent.enabled, matchingPublic: consent.public, updatedAt: now })
      .where(eq(agents.id, agentId));
    await recordAudit(
      ex,
      { ownerId, action: 'agent.matching', subjectId: agentId, details: { ...consent } },
      now,
    );
  }
  if (agent.matchingEnabled !== consent.enabled) await enqueueToolsChanged(ex, agentId, now);
  return { agent: { ...agent, matchingEnabled: consent.enabled, matchingPublic: consent.public }, changed };
}

/**
 * SQL: the identity in `column` is active and its owner lets its matching profile be public. The
 * public intents list filters with it, so a suspended identity's profile disappears at once.
 */
export function publicMatchingAgent(column: SQL | SQL.Aliased | { getSQL(): SQL }): SQL {
  return sql`exists (select 1 from ${agents} where ${agents.id} = ${column}
    and ${agents.status} = 'ACTIVE' and ${agents.matchingEnabled} and ${agents.matchingPublic})`;
}

/** SQL: the identity in `column` is active and matching is on for it. */
export function matchingAgent(column: SQL | SQL.Aliased | { getSQL(): SQL }): SQL {
  return sql`exists (select 1 from ${agents} where ${agents.id} = ${column}
    and ${agents.status} = 'ACTIVE' and ${agents.matchingEnabled})`;
}

/** SQL: the identity in `column` was revoked (it never comes back). */
/** SQL: the agent in `column` is not active (no mode, suspended or revoked): it works on nothing. */
export function inactiveAgent(column: SQL | SQL.Aliased | { getSQL(): SQL }): SQL {
  return sql`exists (select 1 from ${agents} where ${agents.id} = ${column} and (${agents.mode} = 'NONE' or ${agents.status} <> 'ACTIVE'))`;
}

export function revokedAgent(column: SQL | SQL.Aliased | { getSQL(): SQL }): SQL {
  return sql`exists (select 1 from ${agents} where ${agents.id} = ${column} and ${agents.status} = 'REVOKED')`;
}
