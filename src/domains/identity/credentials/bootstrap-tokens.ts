import { and, eq, inArray, isNull } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret, newId, newToken } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { wakeAgent } from '../notifications.ts';
import type { Agent } from '../types.ts';
import { IDENTITY_LIMITS } from './limits.ts';
import { agentTokens, bootstrapTokens } from './tables.ts';

/** Bootstrap tokens (cd_boot_) of owner-created identities: issued, and replaced when one leaked. */

function checkDays(days: number) {
  const range = IDENTITY_LIMITS.bootstrapDays;
  if (!Number.isInteger(days) || days < range.min || days > range.max) {
    throw new DomainError('VALIDATION_FAILED', `Expiry must be ${range.min}-${range.max} days.`, {
      detail: [{ loc: ['body', 'days'], msg: 'out of range', type: 'out_of_range' }],
    });
  }
}

/** A new bootstrap token for an identity; returned once, only its hash is kept. */
export async function issueBootstrap(ex: Executor, agentId: string, days: number, now: Date) {
  checkDays(days);
  const token = newToken('boot');
  const expiresAt = new Date(now.getTime() + days * 86_400_000);
  await ex.insert(bootstrapTokens).values({
    id: newId('bst', now),
    agentId,
    tokenHash: hashSecret(token),
    createdAt: now,
    expiresAt,
  });
  return { agent_id: agentId, bootstrap_token: token, expires_at: expiresAt.toISOString() };
}

/**
 * Replaces an owner-created identity's bootstrap token without revoking the identity, for the
 * console and the CLI alike: every earlier bootstrap token dies at once, and so do the access
 * tokens exchanged from them (a leaked token may already have been used); the new one is
 * returned once.
 */
export async function reissueBootstrap(ex: Executor, agent: Agent, days: number, now: Date) {
  checkDays(days);
  if (agent.status === 'REVOKED') {
    throw new DomainError('CONFLICT', 'This identity is revoked; it can have no new bootstrap token.');
  }
  if (agent.kind !== 'OWNER_CREATED') {
    throw new DomainError(
      'CONFLICT',
      'This identity pairs from its runtime and has no bootstrap token; create a project key or pair it again.',
      { kind: agent.kind },
    );
  }
  const old = await ex
    .update(bootstrapTokens)
    .set({ revokedAt: now })
    .where(and(eq(bootstrapTokens.agentId, agent.id), isNull(bootstrapTokens.revokedAt)))
    .returning({ id: bootstrapTokens.id });
  if (old.length > 0) {
    // An exchange's access tokens carry the bootstrap token's id as their family.
    await ex
      .update(agentTokens)
      .set({ revokedAt: now })
      .where(
        and(
          inArray(
            agentTokens.family,
            old.map((o) => o.id),
          ),
          isNull(agentTokens.revokedAt),
        ),
      );
    await wakeAgent(ex, agent.id);
  }
  return issueBootstrap(ex, agent.id, days, now);
}
