import { and, eq, isNull, or } from 'drizzle-orm';
import { type Alternative, DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { type Caller, inactiveReason } from '../identity/index.ts';
import type { Coverage, ReadCoverage } from '../reading/index.ts';
import { evidenceOfOwner, evidenceSharedWith } from './audience.ts';
import { appendEvent } from './core/ledger.ts';
import { searchReach } from './search-messages.ts';
import { campaignEvidence, campaignMembers, tasks } from './tables.ts';
import { currentLeases } from './tasks/leases.ts';
import { bindImport, recordImport } from './verification/import-binding.ts';

/**
 * Reading inside a campaign (SPEC Authentication 10, issue 5 item 5; docs/decisions.md "Reading
 * inside a campaign"): every fresh read of a campaign member needs a task lease, the one named by
 * task_id or else the only one it holds. Two cases read on the identity's own READ mode instead,
 * unattributed to any campaign: an identity in no campaign, and a member whose owner activated
 * public reading and who holds no lease and names no task (a coordinator preparing tasks, say).
 * A task_id the caller holds no lease on is refused rather than stored unchecked.
 */
async function coverRead(ex: Executor, caller: Caller, taskId: string | null, now: Date): Promise<Coverage> {
  const member = caller.standing === 'MEMBER' || caller.standing === 'COORDINATOR';
  if (!member && taskId === null) return OWN_READ;
  const leases = await currentLeases(ex, caller.agent.id, now);
  const ownReading = readsOnOwnMode(caller);
  if (taskId !== null) {
    const lease = leases.find((l) => l.taskId === taskId);
    if (!lease) {
      throw new DomainError(
        'LEASE_REQUIRED',
        `This identity holds no current lease on task ${taskId}; a read for a task needs its lease.`,
        { task_id: taskId, your_task_ids: leases.map((l) => l.taskId).slice(0, 20) },
        {
          alternatives: [
            ...(member ? await claimMoves(ex, caller.agent.id, taskId) : []),
            ...leases.slice(0, 3).map((l) => ({
              tool: 'fetch_text',
              action: 'Read for a task whose lease you hold.',
              arguments: { task_id: l.taskId },
            })),
            ...(ownReading && leases.length === 0 ? [READ_WITHOUT_TASK] : []),
          ],
          ...(member ? {} : { next: 'Read without task_id: outside a campaign, reads are your own.' }),
        },
      );
    }
    return { campaignId: lease.campaignId, taskId, leaseId: lease.leaseId };
  }
  const [only, ...others] = leases;
  if (!only) {
    if (ownReading) return OWN_READ;
    throw new DomainError(
      'LEASE_REQUIRED',
      'Inside a campaign every read needs a task lease, and this identity holds none.',
      { task_ids: [] },
      {
        alternatives: FIND_A_TASK,
      },
    );
  }
  if (others.length > 0) {
    throw new DomainError(
      'LEASE_AMBIGUOUS',
      'This identity holds several task leases; name the task this read is for with task_id.',
      { task_ids: leases.map((l) => l.taskId).slice(0, 20) },
      {
        alternatives: leases.slice(0, 3).map((l) => ({
          tool: 'fetch_text',
          action: 'Read again naming the task the read is for.',
          arguments: { task_id: l.taskId },
        })),
      },
    );
  }
  return { campaignId: only.campaignId, taskId: only.taskId, leaseId: only.leaseId };
}

/**
 * The way to a lease on a task: claiming it when it is open to this caller now, else finding
 * another open task, so the move offered is one that can succeed.
 */
async function claimMoves(ex: Executor, agentId: string, taskId: string): Promise<Alternative[]> {
  const [open] = await ex
    .select({ id: tasks.id })
    .from(tasks)
    .innerJoin(
      campaignMembers,
      and(
        eq(campaignMembers.campaignId, tasks.campaignId),
        eq(campaignMembers.agentId, agentId),
        eq(campaignMembers.status, 'ACTIVE'),
      ),
    )
    .where(
      and(
        eq(tasks.id, taskId),
        eq(tasks.status, 'OPEN'),
        or(isNull(tasks.assigneeId), eq(tasks.assigneeId, agentId)),
      ),
    );
  if (open)
    return [
      {
        tool: 'task_claim',
        action: 'Claim the task, then read with its task_id.',
        arguments: { task_id: taskId },
      },
    ];
  return FIND_A_TASK;
}

const FIND_A_TASK: Alternative[] = [
  { tool: 'task_list', action: 'See the open tasks of your campaigns.', arguments: { status: 'OPEN' } },
  { tool: 'task_claim', action: 'Claim an open task, then read; the read is filed under it.' },
];

const OWN_READ: Coverage = { campaignId: null, taskId: null, leaseId: null };

const READ_WITHOUT_TASK = {
  tool: 'fetch_text',
  action: 'Read without task_id: the read is your own (public reading), not filed under a task.',
};

/** Public reading the owner activated (mode READ, identity active): reads outside any lease. */
function readsOnOwnMode(caller: Caller): boolean {
  return caller.agent.mode === 'READ' && inactiveReason(caller.agent) === null;
}

/** The reader's role in the campaign its lease is in, as its ledger events name it. */
async function roleIn(ex: Executor, campaignId: string, agentId: string) {
  const [member] = await ex
    .select({ role: campaignMembers.role })
    .from(campaignMembers)
    .where(and(eq(campaignMembers.campaignId, campaignId), eq(campaignMembers.agentId, agentId)));
  return member?.role ?? 'PARTICIPANT';
}

/** A read under a lease joins its campaign's evidence and ledger, in the transaction storing it. */
async function recordRead(
  ex: Executor,
  coverage: Coverage,
  evidence: { id: string; agentId: string },
  now: Date,
): Promise<void> {
  if (!coverage.campaignId) return;
  const role = await roleIn(ex, coverage.campaignId, evidence.agentId);
  await ex
    .insert(campaignEvidence)
    .values({
      campaignId: coverage.campaignId,
      evidenceId: evidence.id,
      agentId: evidence.agentId,
      authorRole: role,
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
      actor: { agentId: evidence.agentId, role },
      taskId: coverage.taskId,
      evidenceIds: [evidence.id],
      payload: { evidence_id: evidence.id, lease_id: coverage.leaseId, provenance: 'SERVER_FETCH' },
    },
    now,
  );
}

/**
 * A read refused under a lease, on the ledger (SPEC: the ledger records refusals): the tool, the
 * reason code and the DENY receipt (policy_explain explains it), never the URL, which may be what
 * was refused (a credential in it).
 */
async function recordRefusal(
  ex: Executor,
  coverage: Coverage,
  refusal: { agentId: string; receiptId: string; code: string; tool: string },
  now: Date,
): Promise<void> {
  if (!coverage.campaignId) return;
  const role = await roleIn(ex, coverage.campaignId, refusal.agentId);
  await appendEvent(
    ex,
    coverage.campaignId,
    {
      kind: 'READ_REFUSED',
      actor: { agentId: refusal.agentId, role },
      taskId: coverage.taskId,
      payload: {
        policy_receipt_id: refusal.receiptId,
        reason_code: refusal.code,
        tool: refusal.tool,
        lease_id: coverage.leaseId,
      },
    },
    now,
  );
}

export const campaignCoverage: ReadCoverage = {
  coverRead,
  recordRefusal,
  recordRead,
  bindImport,
  recordImport,
  sharedEvidence: evidenceSharedWith,
  ownerEvidence: evidenceOfOwner,
  searchReach,
};
