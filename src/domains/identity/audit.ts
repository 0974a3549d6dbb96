import { desc, eq } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { auditLog } from './tables.ts';

/** Every console action of an owner, recorded in the transaction that performs it. */
export type AuditAction =
  | 'agent.approve'
  | 'agent.decline'
  | 'agent.create'
  | 'agent.activate'
  | 'agent.deactivate'
  | 'agent.rename'
  | 'agent.revoke'
  | 'agent.suspend'
  | 'agent.unsuspend'
  | 'key.create'
  | 'key.revoke'
  | 'bootstrap.reissue'
  | 'agent.message'
  | 'agent.matching'
  | 'agent.arena'
  | 'owner.arena_reviewer'
  | 'oauth.allow'
  | 'oauth.decline'
  | 'oauth.revoke'
  | 'owner.token.create'
  | 'owner.token.revoke';

export async function recordAudit(
  ex: Executor,
  entry: {
    ownerId: string;
    action: AuditAction;
    subjectId: string | null;
    details?: Record<string, unknown>;
  },
  now: Date,
): Promise<void> {
  await ex.insert(auditLog).values({
    id: newId('aud', now),
    ownerId: entry.ownerId,
    action: entry.action,
    subjectId: entry.subjectId,
    details: entry.details ?? {},
    createdAt: now,
  });
}

/** The owner's audit log, newest first. */
export async function listAudit(ex: Executor, ownerId: string, limit: number) {
  const rows = await ex
    .select()
    .from(auditLog)
    .where(eq(auditLog.ownerId, ownerId))
    .orderBy(desc(auditLog.createdAt), desc(auditLog.id))
    .limit(limit);
  return rows.map((r) => ({
    id: r.id,
    action: r.action,
    subject_id: r.subjectId,
    details: r.details,
    at: r.createdAt.toISOString(),
  }));
}
