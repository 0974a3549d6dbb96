import { and, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { Coverage, ReadCoverage } from '../../reading/index.ts';
import { evidenceSharedWith } from '../audience.ts';
import { appendEvent } from '../ledger/ledger.ts';
import { campaignEvidence, campaignMembers } from '../tables.ts';
import { currentLeases } from './leases.ts';

/**
 * Reading inside a campaign (SPEC Authentication 10, issue 5 item 5): every fresh read of a
 * campaign member needs a task lease, the one named by task_id or else the only one it holds.
 * An identity in no campaign reads on its own READ mode, and a task_id it holds no lease on is
 * refused rather than stored unchecked.
 */
async function coverRead(ex: Executor, caller: Caller, taskId: string | null, now: Date): Promise<Coverage> {
  const member = caller.standing === 'MEMBER' || caller.standing === 'COORDINATOR';
  if (!member && taskId === null) return { campaignId: null, taskId: null, leaseId: null };
  const leases = await currentLeases(ex, caller.agent.id, now);
  if (taskId !== null) {
    const lease = leases.find((l) => l.taskId === taskId);
    if (!lease) {
      throw new DomainError(
        'LEASE_REQUIRED',
        `This identity holds no current lease on task ${taskId}; a read for a task needs its lease.`,
        { task_id: taskId, your_task_ids: leases.map((l) => l.taskId).slice(0, 20) },
        { alternatives: [{ tool: 'task_claim', action: 'Claim the task, then read with its task_id.' }] },
      );
    }
    return { campaignId: lease.campaignId, taskId, leaseId: lease.leaseId };
  }
  const [only, ...others] = leases;
  if (!only) {
    throw new DomainError(
      'LEASE_REQUIRED',
      'Inside a campaign every read needs a task lease, and this identity holds none.',
      { task_ids: [] },
      {
        alternatives: [
          { tool: 'task_claim', action: 'Claim a task (task_list shows open ones), then read.' },
        ],
      },
    );
  }
  if (others.length > 0) {
    throw new DomainError(
      'LEASE_AMBIGUOUS',
      'This identity holds several task leases; name the task this read is for with task_id.',
      { task_ids: leases.map((l) => l.taskId).slice(0, 20) },
    );
  }
  return { campaignId: only.campaignId, taskId: only.taskId, leaseId: only.leaseId };
}

/** A read under a lease joins its campaign's evidence and ledger, in the transaction storing it. */
async function recordRead(
  ex: Executor,
  coverage: Coverage,
  evidence: { id: string; agentId: string },
  now: Date,
): Promise<void> {
  if (!coverage.campaignId) return;
  const [member] = await ex
    .select({ role: campaignMembers.role })
    .from(campaignMembers)
    .where(
      and(eq(campaignMembers.campaignId, coverage.campaignId), eq(campaignMembers.agentId, evidence.agentId)),
    );
  await ex
    .insert(campaignEvidence)
    .values({
      campaignId: coverage.campaignId,
      evidenceId: evidence.id,
      agentId: evidence.agentId,
      authorRole: member?.role ?? 'PARTICIPANT',
      taskId: coverage.taskId,
      note: null,
      createdAt: now,
    })
    .onConflictDoNothing();
  await appendEvent(
    ex,
    coverage.campaignId,
    {
      kind: 'EVIDENCE_READ',
      actor: { agentId: evidence.agentId, role: member?.role ?? 'PARTICIPANT' },
      taskId: coverage.taskId,
      evidenceIds: [evidence.id],
      payload: { evidence_id: evidence.id, lease_id: coverage.leaseId, provenance: 'SERVER_FETCH' },
    },
    now,
  );
}

export const campaignCoverage: ReadCoverage = {
  coverRead,
  recordRead,
  sharedEvidence: evidenceSharedWith,
};
