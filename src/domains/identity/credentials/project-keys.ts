import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret, newId, newToken } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import * as agentRepo from '../agent-repo.ts';
import type { Agent } from '../types.ts';
import { IDENTITY_LIMITS } from './limits.ts';

/**
 * Issues a project key (cd_prj_) for an agent, for the console and the CLI alike. The key is
 * returned once; only its hash is kept. A revoked identity gets none.
 */
export async function issueProjectKey(ex: Executor, agent: Agent, days: number, now: Date) {
  const range = IDENTITY_LIMITS.projectKeyDays;
  if (!Number.isInteger(days) || days < range.min || days > range.max) {
    throw new DomainError('VALIDATION_FAILED', `Expiry must be ${range.min}-${range.max} days.`, {
      detail: [{ loc: ['body', 'days'], msg: 'out of range', type: 'out_of_range' }],
    });
  }
  if (agent.status === 'REVOKED') {
    throw new DomainError('CONFLICT', 'This identity is revoked; it can have no new keys.');
  }
  const token = newToken('prj');
  const keyId = newId('key', now);
  const expiresAt = new Date(now.getTime() + days * 86_400_000);
  await agentRepo.insertProjectKey(ex, {
    id: keyId,
    agentId: agent.id,
    tokenHash: hashSecret(token),
    createdAt: now,
    expiresAt,
  });
  return { key_id: keyId, project_key: token, expires_at: expiresAt.toISOString() };
}
