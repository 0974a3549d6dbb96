import { and, eq, inArray } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { lockedOne } from '../../storage/locked.ts';
import { appendEvent, type Membership } from '../campaigns/index.ts';
import { mailAccess } from './tables.ts';

/**
 * Who may read a campaign's mail (SPEC Authentication 10: "mailbox access needs a separate owner
 * grant per agent"). An agent asks with campaign_mail_request_access; the campaign's owner of
 * record decides, since the mail is the campaign's (docs/mail.md). Membership alone never grants
 * it, and a revoked grant stops every read at once (each read and each wait rechecks it).
 */

export type AccessRow = typeof mailAccess.$inferSelect;

/**
 * After a decline or a revocation the agent may ask again a day later, not at once: an owner
 * who said no is not asked again and again (each request is an event the owner sees).
 */
export const ASK_AGAIN_AFTER_MS = 24 * 60 * 60 * 1000;

/** When a declined or revoked agent may ask again; null when it may ask now or has nothing to ask. */
function askAgainFrom(row: AccessRow | null): Date | null {
  if (!row?.decidedAt || (row.status !== 'DECLINED' && row.status !== 'REVOKED')) return null;
  return new Date(row.decidedAt.getTime() + ASK_AGAIN_AFTER_MS);
}
export type AccessStatus = 'NONE' | 'REQUESTED' | 'GRANTED' | 'DECLINED' | 'REVOKED';

export async function accessOf(ex: Executor, campaignId: string, agentId: string): Promise<AccessRow | null> {
  const [row] = await ex
    .select()
    .from(mailAccess)
    .where(and(eq(mailAccess.campaignId, campaignId), eq(mailAccess.agentId, agentId)));
  return row ?? null;
}

/** Where the caller's access stands, and the move that changes it. */
export function presentAccess(campaignId: string, row: AccessRow | null, now: Date) {
  const status: AccessStatus = (row?.status as AccessStatus | undefined) ?? 'NONE';
  const inCampaign = { campaign_id: campaignId };
  const again = askAgainFrom(row);
  const waiting = again !== null && again > now;
  const from = again?.toISOString();
  const next = {
    NONE: {
      tool: 'campaign_mail_request_access',
      action: "Ask the campaign's owner for access, saying why you need the mail.",
      arguments: inCampaign,
    },
    REQUESTED: {
      tool: 'campaign_mail_access_status',
      action: "The campaign's owner decides in the console; check here later where it stands.",
      arguments: inCampaign,
    },
    GRANTED: { tool: 'campaign_mail_list', action: "Read the campaign's mail.", arguments: inCampaign },
    DECLINED: waiting
      ? {
          tool: 'campaign_mail_access_status',
          action: `The owner declined. From ${from} (a day after the decision) you may ask again with a new reason the owner can act on; the owner may also change its mind before.`,
          arguments: inCampaign,
        }
      : {
          tool: 'campaign_mail_request_access',
          action: 'The owner declined. Ask again only with a new reason the owner can act on.',
          arguments: inCampaign,
        },
    REVOKED: waiting
      ? {
          tool: 'campaign_mail_access_status',
          action: `The owner revoked your access. From ${from} (a day after the decision) you may ask again with a new reason.`,
          arguments: inCampaign,
        }
      : {
          tool: 'campaign_mail_request_access',
          action: 'The owner revoked your access. Ask again only with a new reason.',
          arguments: inCampaign,
        },
  }[status];
  return {
    campaign_id: campaignId,
    status,
    request_id: row?.requestId ?? null,
    reason: row?.reason ?? null,
    requested_at: row?.requestedAt.toISOString() ?? null,
    decided_at: row?.decidedAt?.toISOString() ?? null,
    ...(waiting ? { ask_again_from: from } : {}),
    next_steps: [next],
  };
}

/** Refuses unless the member holds a grant for this campaign's mail. */
export async function requireMailAccess(ex: Executor, m: Membership): Promise<void> {
  const row = await accessOf(ex, m.campaign.id, m.agentId);
  if (row?.status === 'GRANTED') return;
  const status: AccessStatus = (row?.status as AccessStatus | undefined) ?? 'NONE';
  const inCampaign = { campaign_id: m.campaign.id };
  // Only a move that can succeed now: asking when there is nothing asked yet, else the status,
  // which says whether a request waits, or from when a declined or revoked agent may ask again.
  const move =
    status === 'NONE'
      ? {
          tool: 'campaign_mail_request_access',
          action: "Ask the campaign's owner for access, saying why you need the mail.",
          arguments: inCampaign,
        }
      : {
          tool: 'campaign_mail_access_status',
          action:
            status === 'REQUESTED'
              ? "The campaign's owner decides in the console; check here later where it stands."
              : 'See where your access stands and from when you may ask again.',
          arguments: inCampaign,
        };
  throw new DomainError(
    'MAIL_ACCESS_REQUIRED',
    `Reading this campaign's mail needs a grant from its owner; yours is ${status}.`,
    { campaign_id: m.campaign.id, access_status: status, request_id: row?.requestId ?? null },
    { alternatives: [move], next: move.action },
  );
}

/** campaign_mail_request_access: a request for the owner (a pending or granted one is answered as it is). */
export async function requestAccess(ex: Executor, m: Membership, reason: string, now: Date) {
  const row = await accessOf(ex, m.campaign.id, m.agentId);
  if (row && (row.status === 'REQUESTED' || row.status === 'GRANTED')) {
    return { ...presentAccess(m.campaign.id, row, now), already: true };
  }
  const from = askAgainFrom(row);
  if (from && from > now) {
    const shown = presentAccess(m.campaign.id, row, now);
    throw new DomainError(
      'RATE_LIMITED',
      `The owner ${row?.status === 'DECLINED' ? 'declined' : 'revoked'} your access on ${row?.decidedAt?.toISOString()}; you may ask again from ${from.toISOString()}.`,
      {
        campaign_id: m.campaign.id,
        access_status: shown.status,
        ask_again_from: from.toISOString(),
        retry_after_seconds: Math.ceil((from.getTime() - now.getTime()) / 1000),
      },
      {
        next: `Ask again from ${from.toISOString()}, with a new reason; until then the campaign's other tools are open to you.`,
        alternatives: [
          {
            tool: 'campaign_mail_access_status',
            action: 'See where your access stands (and whether the owner changed it).',
            arguments: { campaign_id: m.campaign.id },
          },
        ],
      },
    );
  }
  const requestId = newId('mar', now);
  const values = {
    requestId,
    status: 'REQUESTED',
    reason,
    requestedAt: now,
    decidedAt: null,
    decidedBy: null,
  };
  await ex
    .insert(mailAccess)
    .values({ campaignId: m.campaign.id, agentId: m.agentId, ...values })
    .onConflictDoUpdate({ target: [mailAccess.campaignId, mailAccess.agentId], set: values });
  await appendEvent(
    ex,
    m.campaign.id,
    {
      kind: 'MAIL_ACCESS_REQUESTED',
      actor: { agentId: m.agentId, role: m.role },
      // Addressed to nobody but the owner's view and the requester: it says nothing of the mail.
      addressedTo: m.agentId,
      payload: { request_id: requestId, agent_id: m.agentId },
    },
    now,
  );
  return {
    ...presentAccess(m.campaign.id, await accessOf(ex, m.campaign.id, m.agentId), now),
    already: false,
  };
}

/** The owner's decision on a request, or a revocation; recorded on the ledger for the agent. */
export async function decideAccess(
  ex: Executor,
  campaignId: string,
  ownerId: string,
  target: { requestId: string } | { agentId: string },
  decision: 'GRANTED' | 'DECLINED' | 'REVOKED',
  now: Date,
) {
  const row = await lockedOne(
    ex
      .select()
      .from(mailAccess)
      .where(
        and(
          eq(mailAccess.campaignId, campaignId),
          'requestId' in target
            ? eq(mailAccess.requestId, target.requestId)
            : eq(mailAccess.agentId, target.agentId),
        ),
      ),
    () =>
      new DomainError('NOT_FOUND', 'No such mail access request in this campaign.', {
        campaign_id: campaignId,
      }),
  );
  const allowed = decision === 'REVOKED' ? row.status === 'GRANTED' : row.status === 'REQUESTED';
  if (!allowed) {
    throw new DomainError(
      'CONFLICT',
      decision === 'REVOKED'
        ? `Agent ${row.agentId} holds no grant to revoke (its access is ${row.status}).`
        : `Request ${row.requestId} was already decided (${row.status}).`,
      { request_id: row.requestId, agent_id: row.agentId, status: row.status },
    );
  }
  await ex
    .update(mailAccess)
    .set({ status: decision, decidedAt: now, decidedBy: `owner:${ownerId}` })
    .where(and(eq(mailAccess.campaignId, campaignId), eq(mailAccess.agentId, row.agentId)));
  await appendEvent(
    ex,
    campaignId,
    {
      kind: `MAIL_ACCESS_${decision}`,
      actor: { ownerId, role: 'OWNER' },
      addressedTo: row.agentId,
      payload: { request_id: row.requestId, agent_id: row.agentId, status: decision },
    },
    now,
  );
  return {
    request_id: row.requestId,
    agent_id: row.agentId,
    status: decision,
    decided_at: now.toISOString(),
  };
}

/**
 * A membership ended (campaign_leave, removal, withdrawal): the agent's pending request or grant
 * ends with it (REVOKED), in the same transaction; whether there was one. Back in the campaign,
 * the agent asks again and the owner decides afresh.
 */
export async function endAccess(
  ex: Executor,
  end: { campaignId: string; agentId: string; endedBy: string; now: Date },
): Promise<boolean> {
  const ended = await ex
    .update(mailAccess)
    .set({ status: 'REVOKED', decidedAt: end.now, decidedBy: end.endedBy })
    .where(
      and(
        eq(mailAccess.campaignId, end.campaignId),
        eq(mailAccess.agentId, end.agentId),
        inArray(mailAccess.status, ['REQUESTED', 'GRANTED']),
      ),
    )
    .returning({ status: mailAccess.status });
  return ended.length > 0;
}
