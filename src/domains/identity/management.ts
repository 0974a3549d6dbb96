import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Database, Executor } from '../../storage/database.ts';
import * as agentRepo from './agent-repo.ts';
import { type AuditAction, listAudit, recordAudit } from './audit.ts';
import { issueBootstrap, reissueBootstrap } from './credentials/bootstrap-tokens.ts';
import { IDENTITY_LIMITS } from './credentials/limits.ts';
import { revokeGrantsOfAgent } from './credentials/oauth-repo.ts';
import { issueProjectKey } from './credentials/project-keys.ts';
import * as mrepo from './management-repo.ts';
import { enqueueToolsChanged, wakeAgent } from './notifications.ts';
import { sendOwnerMessage } from './owner-messages.ts';
import { isActive } from './policy.ts';
import type { Agent } from './types.ts';

/**
 * What an owner does to their own identities from the console: every action checks ownership,
 * happens in one transaction with its audit record, and reaches connected agents at once.
 */
export class ManagementService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  async listIdentities(ownerId: string) {
    const rows = await mrepo.listOwnerAgents(this.database.db, ownerId, this.clock.now());
    return rows.map((r) => ({
      agent_id: r.id,
      display_name: r.displayName,
      runtime: r.runtime,
      kind: r.kind,
      mode: r.mode,
      status: r.status,
      active: r.status === 'ACTIVE' && r.mode !== 'NONE',
      created_at: r.createdAt.toISOString(),
      last_seen_at: r.lastSeenAt?.toISOString() ?? null,
      connections: { open_sessions: r.openSessions, project_keys: r.activeKeys, tokens: r.activeTokens },
    }));
  }

  /** One identity of this owner with its project keys; NOT_FOUND for anyone else's. */
  async getIdentity(ownerId: string, agentId: string) {
    const agent = await this.ownedAgent(this.database.db, ownerId, agentId);
    const keys = await mrepo.listAgentKeys(this.database.db, agentId);
    return {
      agent,
      keys: keys.map((k) => ({
        key_id: k.id,
        created_at: k.createdAt.toISOString(),
        expires_at: k.expiresAt.toISOString(),
        last_used_at: k.lastUsedAt?.toISOString() ?? null,
        revoked_at: k.revokedAt?.toISOString() ?? null,
      })),
    };
  }

  /**
   * READ activates public reading, CAMPAIGN campaign work only; NONE deactivates: the identity
   * stops everywhere, its campaigns included, and the leases it holds are released within a
   * sweep (docs/campaign-lifecycle.md). Open sessions hear about it at once.
   */
  async setMode(ownerId: string, agentId: string, mode: Agent['mode']) {
    return this.act(
      ownerId,
      agentId,
      mode === 'NONE' ? 'agent.deactivate' : 'agent.activate',
      async (tx, agent) => setModeOf(tx, agent, mode, this.clock.now()),
    );
  }

  /**
   * Suspends an identity with a reason: nothing works for it (memberships included) but
   * identity_whoami and capabilities_describe, which give the reason; its mode is kept, so
   * lifting the suspension restores it. Its leases are released within a sweep.
   */
  async suspend(ownerId: string, agentId: string, reason: string) {
    return this.act(ownerId, agentId, 'agent.suspend', async (tx, agent) =>
      suspendAgent(tx, agent, reason, this.clock.now()),
    );
  }

  /** Lifts a suspension: the identity is as it was before, in the mode it had. */
  async unsuspend(ownerId: string, agentId: string) {
    return this.act(ownerId, agentId, 'agent.unsuspend', async (tx, agent) =>
      unsuspendAgent(tx, agent, this.clock.now()),
    );
  }

  async rename(ownerId: string, agentId: string, displayName: string) {
    const name = displayName.trim();
    if (name.length < 1 || name.length > IDENTITY_LIMITS.displayName.maxChars) {
      throw new DomainError(
        'VALIDATION_FAILED',
        `The name must be 1-${IDENTITY_LIMITS.displayName.maxChars} characters.`,
        {
          detail: [{ loc: ['body', 'display_name'], msg: 'length out of range', type: 'too_big' }],
        },
      );
    }
    return this.act(ownerId, agentId, 'agent.rename', async (tx, agent) => {
      if (agent.status === 'REVOKED') throw new DomainError('CONFLICT', 'This identity is revoked.');
      await mrepo.renameAgent(tx, agentId, name, this.clock.now());
      return { agent_id: agentId, display_name: name, previous: agent.displayName };
    });
  }

  /**
   * A message to one of the owner's agents (SPEC Events 2), at most the size of a campaign
   * message: it reaches the agent with its next tool call, and open sessions hear of it now.
   */
  async messageAgent(ownerId: string, agentId: string, text: string) {
    const body = text.trim();
    const bytes = Buffer.byteLength(body, 'utf8');
    if (
      !body ||
      body.length > IDENTITY_LIMITS.messageContent.maxChars ||
      bytes > IDENTITY_LIMITS.messageContent.maxBytes
    ) {
      throw new DomainError(
        'VALIDATION_FAILED',
        `A message is 1-${IDENTITY_LIMITS.messageContent.maxChars} characters and at most ${IDENTITY_LIMITS.messageContent.maxBytes / 1024} KiB.`,
        { detail: [{ loc: ['body', 'text'], msg: 'length out of range', type: 'too_big' }] },
      );
    }
    return this.act(ownerId, agentId, 'agent.message', async (tx, agent) => {
      if (agent.status === 'REVOKED') throw new DomainError('CONFLICT', 'This identity is revoked.');
      const message = await sendOwnerMessage(tx, { ownerId, agentId, text: body, now: this.clock.now() });
      return { agent_id: agentId, message_id: message.message_id };
    });
  }

  /** Every credential of the identity stops working at once: authentication checks its status. */
  async revoke(ownerId: string, agentId: string) {
    return this.act(ownerId, agentId, 'agent.revoke', async (tx) => {
      await agentRepo.updateAgentStatus(tx, agentId, 'REVOKED', this.clock.now());
      await revokeGrantsOfAgent(tx, agentId, this.clock.now());
      await wakeAgent(tx, agentId);
      return { agent_id: agentId, status: 'REVOKED' as const };
    });
  }

  /** An owner-created identity and its bootstrap token, shown once. */
  async createIdentity(
    ownerId: string,
    input: { displayName: string; runtime: string; bootstrapDays: number },
  ) {
    const displayName = input.displayName.trim();
    const runtime = input.runtime.trim();
    const { displayName: nameLimit, runtime: runtimeLimit, bootstrapDays: daysLimit } = IDENTITY_LIMITS;
    const problems = [
      (displayName.length < 1 || displayName.length > nameLimit.maxChars) &&
        `display_name: 1-${nameLimit.maxChars} characters`,
      (runtime.length < 1 || runtime.length > runtimeLimit.maxChars) &&
        `runtime: 1-${runtimeLimit.maxChars} characters`,
      (!Number.isInteger(input.bootstrapDays) ||
        input.bootstrapDays < daysLimit.min ||
        input.bootstrapDays > daysLimit.max) &&
        `bootstrap_days: ${daysLimit.min}-${daysLimit.max}`,
    ].filter((p): p is string => typeof p === 'string');
    if (problems.length > 0) {
      throw new DomainError('VALIDATION_FAILED', `Cannot create the identity: ${problems.join('; ')}.`, {
        detail: problems.map((p) => ({
          loc: ['body', p.split(':')[0] ?? 'body'],
          msg: p,
          type: 'out_of_range',
        })),
      });
    }
    const now = this.clock.now();
    const agentId = newId('agt', now);
    return this.database.transaction(async (tx) => {
      await agentRepo.insertAgent(tx, {
        id: agentId,
        ownerId,
        displayName,
        runtime,
        kind: 'OWNER_CREATED',
        createdAt: now,
      });
      const issued = await issueBootstrap(tx, agentId, input.bootstrapDays, now);
      await recordAudit(tx, { ownerId, action: 'agent.create', subjectId: agentId }, now);
      return issued;
    });
  }

  /** A new bootstrap token for an owner-created identity; the old ones (and their tokens) die at once. */
  async reissueBootstrap(ownerId: string, agentId: string, days: number) {
    let issued: Awaited<ReturnType<typeof reissueBootstrap>> | undefined;
    await this.act(ownerId, agentId, 'bootstrap.reissue', async (tx, agent) => {
      issued = await reissueBootstrap(tx, agent, days, this.clock.now());
      // The audit record says when it expires, never its value.
      return { expires_at: issued.expires_at };
    });
    return issued!;
  }

  async createProjectKey(ownerId: string, agentId: string, days: number) {
    let issued: Awaited<ReturnType<typeof issueProjectKey>> | undefined;
    await this.act(ownerId, agentId, 'key.create', async (tx, agent) => {
      issued = await issueProjectKey(tx, agent, days, this.clock.now());
      // The audit record names the key, never its value.
      return { key_id: issued.key_id, expires_at: issued.expires_at };
    });
    return issued!;
  }

  async revokeProjectKey(ownerId: string, keyId: string) {
    const agentId = await mrepo.findKeyAgent(this.database.db, keyId);
    if (!agentId) throw new DomainError('NOT_FOUND', 'No such project key.');
    return this.act(
      ownerId,
      agentId,
      'key.revoke',
      async (tx) => {
        await wakeAgent(tx, agentId);
        if (!(await mrepo.revokeKeyById(tx, keyId, this.clock.now()))) {
          throw new DomainError('CONFLICT', 'This key is already revoked.');
        }
        return { key_id: keyId, revoked: true };
      },
      keyId,
    );
  }

  async auditLog(ownerId: string, limit = 200) {
    return listAudit(this.database.db, ownerId, Math.min(Math.max(limit, 1), 500));
  }

  /** Ownership check, the action and its audit record, in one transaction. */
  private act<T extends Record<string, unknown>>(
    ownerId: string,
    agentId: string,
    action: AuditAction,
    fn: (tx: Executor, agent: Agent) => Promise<T>,
    subjectId: string = agentId,
  ): Promise<T> {
    return this.database.transaction(async (tx) => {
      const agent = await this.ownedAgent(tx, ownerId, agentId);
      const result = await fn(tx, agent);
      await recordAudit(tx, { ownerId, action, subjectId, details: result }, this.clock.now());
      return result;
    });
  }

  private async ownedAgent(ex: Executor, ownerId: string, agentId: string): Promise<Agent> {
    const agent = await agentRepo.findAgent(ex, agentId);
    // Someone else's identity is reported exactly like a missing one.
    if (!agent || agent.ownerId !== ownerId) throw new DomainError('NOT_FOUND', 'No such identity.');
    return agent;
  }
}

/** The owner's or operator's change of mode, checked. */
export async function setModeOf(ex: Executor, agent: Agent, mode: Agent['mode'], now: Date) {
  if (agent.status === 'REVOKED') throw new DomainError('CONFLICT', `Agent ${agent.id} is revoked.`);
  if (agent.guestRequestId && mode === 'READ') throw guestBound(agent.id);
  await changeMode(ex, agent.id, mode, now);
  const after = { ...agent, mode };
  return { agent_id: agent.id, mode, status: agent.status, active: isActive(after) };
}

/** A suspension's reason as given: trimmed, 1-500 characters. */
function suspendReasonOf(reason: string): string {
  const text = reason.trim();
  if (text.length < 1 || text.length > 500) {
    throw new DomainError(
      'VALIDATION_FAILED',
      'Give a reason of 1-500 characters; the identity is told it.',
      {
        detail: [{ loc: ['body', 'reason'], msg: 'length out of range', type: 'too_long' }],
      },
    );
  }
  return text;
}

export async function suspendAgent(ex: Executor, agent: Agent, reason: string, now: Date) {
  const why = suspendReasonOf(reason);
  if (agent.status === 'REVOKED') throw new DomainError('CONFLICT', `Agent ${agent.id} is revoked.`);
  await agentRepo.updateSuspension(ex, agent.id, { status: 'SUSPENDED', reason: why }, now);
  await enqueueToolsChanged(ex, agent.id, now);
  return { agent_id: agent.id, status: 'SUSPENDED' as const, reason: why, mode: agent.mode, active: false };
}

export async function unsuspendAgent(ex: Executor, agent: Agent, now: Date) {
  if (agent.status !== 'SUSPENDED') {
    throw new DomainError('CONFLICT', `Agent ${agent.id} is not suspended (it is ${agent.status}).`, {
      agent_id: agent.id,
      status: agent.status,
    });
  }
  await agentRepo.updateSuspension(ex, agent.id, { status: 'ACTIVE', reason: null }, now);
  await enqueueToolsChanged(ex, agent.id, now);
  return {
    agent_id: agent.id,
    status: 'ACTIVE' as const,
    mode: agent.mode,
    active: isActive({ status: 'ACTIVE', mode: agent.mode }),
  };
}

/** A guest identity works in its one campaign only: no reading mode, no matching of its own. */
export function guestBound(agentId: string): DomainError {
  return new DomainError(
    'CONFLICT',
    'This is a guest identity, bound to the one campaign its matching request joined: it takes no reading mode, no matching and no other campaign. Pair an ordinary identity for other work.',
    { agent_id: agentId },
  );
}

/**
 * The owner's activation of an inert identity for campaign work (SPEC States: "owner invites to
 * campaign"): their invitation, their acceptance of another's, their approval of a matched join.
 * A mode the identity has already is kept, and a suspended or revoked one is not touched.
 */
export async function activateForCampaigns(
  ex: Executor,
  agent: Pick<Agent, 'id' | 'mode' | 'status'>,
  now: Date,
) {
  if (agent.mode !== 'NONE' || agent.status !== 'ACTIVE') return;
  await changeMode(ex, agent.id, 'CAMPAIGN', now);
}

/** Sets the mode and tells the identity's open MCP sessions that their tool list changed. */
export async function changeMode(
  ex: Executor,
  agentId: string,
  mode: Agent['mode'],
  now: Date,
): Promise<void> {
  await agentRepo.updateAgentMode(ex, agentId, mode, now);
  await enqueueToolsChanged(ex, agentId, now);
}
