import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { lockedOne } from '../../storage/locked.ts';
import { findAgent } from './agent-repo.ts';
import { recordAudit } from './audit.ts';
import { guestBound } from './management.ts';
import { enqueueToolsChanged } from './notifications.ts';
import { agents, owners } from './tables.ts';
import type { Agent } from './types.ts';

/**
 * The owner's activation of the Arena, per identity (SPEC Permissions 10: "Arena needs separate
 * owner activation"): apart from READ and campaign membership. Turning it on or off reaches the
 * identity's open sessions as notifications/tools/list_changed, since the Arena tools follow it.
 */
export async function setArenaActivation(
  ex: Executor,
  ownerId: string,
  agentId: string,
  enabled: boolean,
  now: Date,
): Promise<{ agent: Agent; changed: boolean }> {
  const agent = await findAgent(ex, agentId);
  // Someone else's identity is reported exactly like a missing one.
  if (!agent || agent.ownerId !== ownerId) {
    throw new DomainError('NOT_FOUND', 'No such identity.', { agent_id: agentId });
  }
  // A guest is bound to the one campaign it was paired for (docs/matching.md).
  if (agent.guestRequestId && enabled) throw guestBound(agentId);
  if (agent.status === 'REVOKED' && enabled) {
    throw new DomainError('CONFLICT', 'This identity is revoked; the Arena cannot be turned on for it.', {
      agent_id: agentId,
    });
  }
  const changed = agent.arenaEnabled !== enabled;
  if (changed) {
    await ex.update(agents).set({ arenaEnabled: enabled, updatedAt: now }).where(eq(agents.id, agentId));
    await recordAudit(ex, { ownerId, action: 'agent.arena', subjectId: agentId, details: { enabled } }, now);
    await enqueueToolsChanged(ex, agentId, now);
  }
  return { agent: { ...agent, arenaEnabled: enabled }, changed };
}

/**
 * Identities that take part in the Arena now (active, turned on, not a guest), in id order after
 * `afterId`: what the operator's schedule of assignments walks through, a page at a time.
 */
export async function arenaParticipants(ex: Executor, afterId: string, limit: number) {
  return ex
    .select({ id: agents.id, ownerId: agents.ownerId })
    .from(agents)
    .where(
      and(
        eq(agents.arenaEnabled, true),
        eq(agents.status, 'ACTIVE'),
        isNull(agents.guestRequestId),
        gt(agents.id, afterId),
      ),
    )
    .orderBy(asc(agents.id))
    .limit(limit);
}

/** Whether an owner account decides Arena reports and appeals (named by the operator). */
export async function isArenaReviewer(ex: Executor, ownerId: string): Promise<boolean> {
  const [row] = await ex.select({ on: owners.arenaReviewer }).from(owners).where(eq(owners.id, ownerId));
  return row?.on === true;
}

/**
 * The operator names an owner account an Arena reviewer, or no longer (by email). The change is
 * audited on the named account's log, with who made it (`by`: the operator's owner id, or `cli`).
 */
export async function setArenaReviewer(ex: Executor, email: string, on: boolean, now: Date, by: string) {
  const before = await lockedOne(
    ex
      .select({ id: owners.id, email: owners.email, reviewer: owners.arenaReviewer })
      .from(owners)
      .where(sql`lower(${owners.email}) = lower(${email.trim()})`),
    () =>
      new DomainError(
        'NOT_FOUND',
        `No owner with email ${email}.`,
        { email },
        {
          next: 'Name an existing owner account (its sign-in email); the person signs up in the console first.',
        },
      ),
  );
  if (before.reviewer !== on) {
    await ex.update(owners).set({ arenaReviewer: on }).where(eq(owners.id, before.id));
    await recordAudit(
      ex,
      {
        ownerId: before.id,
        action: 'owner.arena_reviewer',
        subjectId: before.id,
        details: { enabled: on, by },
      },
      now,
    );
  }
  return { owner_id: before.id, email: before.email, arena_reviewer: on, changed: before.reviewer !== on };
}

/** The deployment's Arena reviewers, by email (there are few: a page of 200 covers any real one). */
export async function arenaReviewers(ex: Executor) {
  const rows = await ex
    .select({ owner_id: owners.id, email: owners.email })
    .from(owners)
    .where(eq(owners.arenaReviewer, true))
    .orderBy(asc(owners.email))
    .limit(200);
  return rows;
}
