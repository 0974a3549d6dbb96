import { and, desc, eq, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { cutPage } from '../../kernel/paging.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { admitMatched, campaignForMatching, ownedOpenCampaign } from '../campaigns/index.ts';
import { findAgent, type MatchingConsent, setMatchingConsent } from '../identity/index.ts';
import { beginMatchingWrite, expireRequests, isOpen, recordChanges, stopOpenRequests } from './changes.ts';
import {
  findApplication,
  type IntentFields,
  presentIntent,
  publishApplication,
  withdrawApplication,
  withdrawProfile,
} from './intents.ts';
import { requestEnded } from './refusals.ts';
import { effective, type RequestRow } from './request-view.ts';
import { stopBetween } from './requests.ts';
import type { WaitingFor } from './states.ts';
import { matchingRequests } from './tables.ts';

/** Whether an invited agent accepted (it answered, and the request went on to the owners or the join). */
function acceptedByJoiner(row: RequestRow): boolean {
  return row.state === 'TENTATIVE' || row.state === 'JOINED' || row.campaignOwnerDecidedAt !== null;
}

/**
 * What owners do about matching, from the console or the owner API (docs/matching.md): consent
 * per identity, a campaign's call for applications, and the two decisions that end a request in
 * a join: the campaign's owner first, then the joining agent's owner.
 */
export class MatchingOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  /** Turns matching on or off for one of the owner's identities; off withdraws its profile and requests. */
  async setConsent(ownerId: string, agentId: string, consent: MatchingConsent) {
    return this.database.transaction(async (tx) => {
      await beginMatchingWrite(tx);
      const now = this.clock.now();
      await setMatchingConsent(tx, ownerId, agentId, consent, now);
      let stopped: string[] = [];
      let profileWithdrawn = false;
      if (!consent.enabled) {
        profileWithdrawn = (await withdrawProfile(tx, agentId, now)).withdrawn;
        stopped = await stopOpenRequests(
          tx,
          or(
            eq(matchingRequests.requesterAgentId, agentId),
            eq(matchingRequests.joinerAgentId, agentId),
            eq(matchingRequests.targetAgentId, agentId),
          ) as SQL,
          'CONSENT_WITHDRAWN',
          now,
        );
      }
      return {
        agent_id: agentId,
        matching: { enabled: consent.enabled, public: consent.public },
        profile_withdrawn: profileWithdrawn,
        stopped_requests: stopped,
        next: consent.enabled
          ? 'The identity now has the matching tools (its sessions got notifications/tools/list_changed); it publishes a profile with matching_profile.'
          : 'The identity no longer has the matching tools; its profile and open requests ended.',
      };
    });
  }

  /** The requests this owner decides or follows: of their campaigns, or joining with their agents. */
  async listRequests(
    ownerId: string,
    page: { state?: string | undefined; limit: number; before?: string | undefined },
  ) {
    const now = this.clock.now();
    const db = this.database.db;
    const rows = await db
      .select()
      .from(matchingRequests)
      .where(
        and(
          or(eq(matchingRequests.campaignOwnerId, ownerId), eq(matchingRequests.joinerOwnerId, ownerId)),
          page.state === 'OPEN'
            ? sql`${matchingRequests.state} in ('PROPOSED', 'TENTATIVE') and ${matchingRequests.expiresAt} > ${now}`
            : page.state === 'YOUR_TURN'
              ? sql`${matchingRequests.state} = 'TENTATIVE' and ${matchingRequests.expiresAt} > ${now} and (
                  (${matchingRequests.waitingFor} = 'CAMPAIGN_OWNER' and ${matchingRequests.campaignOwnerId} = ${ownerId})
                  or (${matchingRequests.waitingFor} = 'JOINER_OWNER' and ${matchingRequests.joinerOwnerId} = ${ownerId}))`
              : undefined,
          page.before ? lt(matchingRequests.id, page.before) : undefined,
        ),
      )
      .orderBy(desc(matchingRequests.id))
      .limit(page.limit + 1);
    const shown = cutPage(rows, page.limit, (last) => last.id);
    return {
      requests: await Promise.all(shown.rows.map((r) => this.present(db, ownerId, r, now))),
      next_before: shown.next,
    };
  }

  async getRequest(ownerId: string, requestId: string) {
    const db = this.database.db;
    return this.present(db, ownerId, await this.ownersRequest(db, ownerId, requestId), this.clock.now());
  }

  /**
   * The owner's decision on a TENTATIVE request, in order: the campaign's owner accepts first,
   * then the joining agent's owner approves, and only then the agent joins. One owner on both
   * sides decides once. Refused (MATCHING_NOT_YOUR_TURN) when it is the other owner's turn.
   */
  async decide(
    ownerId: string,
    requestId: string,
    decision: 'ACCEPT' | 'DECLINE',
    joinAs: 'SELF' | 'GUEST' = 'SELF',
  ) {
    // Times are read after the matching lock is held: a decision that waited for another one is
    // dated after it, so the campaign owner's acceptance is never dated after the join it allowed.
    // An expired request is written as such first (its own commit), so the refusal below is true.
    await this.database.transaction(async (tx) => {
      await beginMatchingWrite(tx);
      await expireRequests(tx, eq(matchingRequests.id, requestId), this.clock.now());
    });
    const outcome = await this.database.transaction(async (tx) => {
      await beginMatchingWrite(tx);
      const now = this.clock.now();
      const row = await this.ownersRequest(tx, ownerId, requestId, true);
      const e = effective(row, now);
      if (!isOpen(e.state)) throw requestEnded(row.id, e.state, e.stopReason);
      const mine: WaitingFor | null =
        e.waitingFor === 'CAMPAIGN_OWNER' && row.campaignOwnerId === ownerId
          ? 'CAMPAIGN_OWNER'
          : e.waitingFor === 'JOINER_OWNER' && row.joinerOwnerId === ownerId
            ? 'JOINER_OWNER'
            : // While the guest is being paired, its owner may still call it off.
              e.waitingFor === 'GUEST_PAIRING' && row.joinerOwnerId === ownerId && decision === 'DECLINE'
              ? 'JOINER_OWNER'
              : null;
      if (!mine) {
        throw new DomainError(
          'MATCHING_NOT_YOUR_TURN',
          e.waitingFor === 'RESPONDER'
            ? 'The responder has not accepted this request yet; owners decide after that.'
            : e.waitingFor === 'CAMPAIGN_OWNER'
              ? "The campaign's owner decides first; you approve afterwards."
              : e.waitingFor === 'GUEST_PAIRING'
                ? 'Both owners accepted; the joining agent is pairing a guest identity, approved at /pair (its owner may still DECLINE).'
                : "The joining agent's owner decides now.",
          { matching_request_id: row.id, waiting_for: e.waitingFor },
        );
      }
      const decided =
        mine === 'CAMPAIGN_OWNER' ? { campaignOwnerDecidedAt: now } : { joinerOwnerDecidedAt: now };
      if (decision === 'DECLINE') {
        await tx
          .update(matchingRequests)
          .set({ ...decided, updatedAt: now })
          .where(eq(matchingRequests.id, row.id));
        await stopBetween(tx, row, 'OWNER_DECLINED', now);
        return { kind: 'done' as const };
      }
      const campaign = await campaignForMatching(tx, row.campaignId);
      if (!campaign?.open) {
        const stopping = campaign?.stopping === true;
        await stopBetween(tx, row, stopping ? 'CAMPAIGN_STOPPED' : 'CAMPAIGN_CLOSED', now);
        return { kind: 'closed' as const, stopping };
      }
      // A revoked agent never comes back: the request ends rather than waiting out its expiry.
      if ((await findAgent(tx, row.joinerAgentId))?.status === 'REVOKED') {
        await stopBetween(tx, row, 'AGENT_REVOKED', now);
        return { kind: 'revoked' as const };
      }
      // One owner on both sides: their acceptance is also the joining agent's owner's approval.
      const joinNow = mine === 'JOINER_OWNER' || row.joinerOwnerId === row.campaignOwnerId;
      const both =
        row.joinerOwnerId === row.campaignOwnerId
          ? { campaignOwnerDecidedAt: now, joinerOwnerDecidedAt: now }
          : {};
      if (joinNow && joinAs === 'GUEST') {
        // The joining agent's owner chose a guest identity: the agent pairs one (matching_get says how).
        await tx
          .update(matchingRequests)
          .set({ ...decided, ...both, waitingFor: 'GUEST_PAIRING', updatedAt: now })
          .where(eq(matchingRequests.id, row.id));
        await recordChanges(tx, [{ requestId: row.id, state: 'TENTATIVE' }], now);
        return { kind: 'done' as const };
      }
      if (!joinNow) {
        await tx
          .update(matchingRequests)
          .set({ ...decided, waitingFor: 'JOINER_OWNER', updatedAt: now })
          .where(eq(matchingRequests.id, row.id));
        await recordChanges(tx, [{ requestId: row.id, state: 'TENTATIVE' }], now);
        return { kind: 'done' as const };
      }
      await admitMatched(
        tx,
        { campaignId: row.campaignId, agentId: row.joinerAgentId, requestId: row.id, decidedBy: ownerId },
        now,
      );
      await tx
        .update(matchingRequests)
        .set({
          ...decided,
          ...both,
          joinedAgentId: row.joinerAgentId,
          state: 'JOINED',
          waitingFor: null,
          endedAt: now,
          updatedAt: now,
        })
        .where(eq(matchingRequests.id, row.id));
      await recordChanges(tx, [{ requestId: row.id, state: 'JOINED' }], now);
      return { kind: 'done' as const };
    });
    if (outcome.kind === 'closed') {
      throw outcome.stopping
        ? new DomainError('CAMPAIGN_STOPPING', 'The campaign is stopping; the request was stopped.', {
            matching_request_id: requestId,
          })
        : new DomainError('CAMPAIGN_CLOSED', 'The campaign closed; the request was stopped.', {
            matching_request_id: requestId,
          });
    }
    if (outcome.kind === 'revoked') {
      throw new DomainError(
        'CONFLICT',
        'The joining agent was revoked; the request was stopped and nobody joined.',
        { matching_request_id: requestId, stop_reason: 'AGENT_REVOKED' },
        { next: 'Nothing more to decide on this request; GET /v1/matching/requests lists the others.' },
      );
    }
    return this.getRequest(ownerId, requestId);
  }

  /** The campaign's call for applications, if it has one. */
  async getApplication(ownerId: string, campaignId: string) {
    const db = this.database.db;
    await ownedOpenCampaign(db, ownerId, campaignId);
    const row = await findApplication(db, campaignId);
    return {
      campaign_id: campaignId,
      application: row ? { ...presentIntent(row), public: row.isPublic } : null,
    };
  }

  /** Opens an owner's campaign to applications through matching (or changes its call). */
  async publishApplication(
    ownerId: string,
    campaignId: string,
    fields: IntentFields & { isPublic: boolean },
  ) {
    const now = this.clock.now();
    return this.database.transaction(async (tx) => {
      const campaign = await ownedOpenCampaign(tx, ownerId, campaignId);
      const row = await publishApplication(tx, campaign, fields, now);
      return {
        campaign_id: campaignId,
        application: { ...presentIntent(row), public: row.isPublic },
        next: 'Agents with matching on find it with matching_list (and the public list when public); a coordinator answers each request with matching_respond, then you decide it here.',
      };
    });
  }

  async withdrawApplication(ownerId: string, campaignId: string) {
    const now = this.clock.now();
    return this.database.transaction(async (tx) => {
      await ownedOpenCampaign(tx, ownerId, campaignId);
      return { campaign_id: campaignId, ...(await withdrawApplication(tx, campaignId, now)) };
    });
  }

  private async ownersRequest(ex: Executor, ownerId: string, requestId: string, forUpdate = false) {
    const query = ex
      .select()
      .from(matchingRequests)
      .where(
        and(
          eq(matchingRequests.id, requestId),
          or(eq(matchingRequests.campaignOwnerId, ownerId), eq(matchingRequests.joinerOwnerId, ownerId)),
        ),
      );
    const [row] = forUpdate ? await query.for('update') : await query;
    if (!row) {
      throw new DomainError('NOT_FOUND', `No matching request ${requestId} for you.`, {
        matching_request_id: requestId,
      });
    }
    return row;
  }

  /** A request as an owner sees it: the campaign and the joining agent by name, and whose turn it is. */
  private async present(ex: Executor, ownerId: string, row: RequestRow, now: Date) {
    const e = effective(row, now);
    const [campaign, joiner] = await Promise.all([
      campaignForMatching(ex, row.campaignId),
      findAgent(ex, row.joinerAgentId),
    ]);
    const yourTurn =
      isOpen(e.state) &&
      ((e.waitingFor === 'CAMPAIGN_OWNER' && row.campaignOwnerId === ownerId) ||
        (e.waitingFor === 'JOINER_OWNER' && row.joinerOwnerId === ownerId));
    return {
      matching_request_id: row.id,
      state: e.state,
      waiting_for: e.waitingFor,
      stop_reason: e.stopReason,
      your_turn: yourTurn,
      your_sides: [
        ...(row.campaignOwnerId === ownerId ? ['CAMPAIGN_OWNER'] : []),
        ...(row.joinerOwnerId === ownerId ? ['JOINER_OWNER'] : []),
      ],
      campaign: { campaign_id: row.campaignId, title: campaign?.title ?? null },
      // An invited profile's agent is named to the campaign's owner only once it accepted (until
      // then the campaign side knows it by its alias, as the profile promised); an applicant asked.
      joining_agent:
        row.joinerOwnerId === ownerId || row.intentKind === 'APPLICATION' || acceptedByJoiner(row)
          ? {
              agent_id: row.joinerAgentId,
              display_name: joiner?.displayName ?? null,
              about_you: joiner?.about ?? {},
              about_label: 'Self-reported by the agent; not verified.',
            }
          : { alias: row.intentAlias, shown: 'by its profile alias until it accepts' },
      direction: row.intentKind === 'APPLICATION' ? 'APPLICATION' : 'INVITATION',
      intent: { intent_id: row.intentId, alias: row.intentAlias, topic: row.intentTopic },
      reason: row.reason,
      response_reason: row.responseReason,
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
      campaign_owner_decided_at: row.campaignOwnerDecidedAt?.toISOString() ?? null,
      joiner_owner_decided_at: row.joinerOwnerDecidedAt?.toISOString() ?? null,
      next: yourTurn
        ? `Decide with POST /v1/matching/requests/${row.id}/decision {decision: ACCEPT | DECLINE}.`
        : e.waitingFor === 'GUEST_PAIRING'
          ? row.joinerOwnerId === ownerId
            ? 'Your agent pairs a guest identity for it: approve the code it shows you at /pair (or DECLINE here to call it off).'
            : "Waiting for the joining agent's guest identity to be paired."
          : e.state === 'TENTATIVE'
            ? `Waiting for ${e.waitingFor === 'CAMPAIGN_OWNER' ? "the campaign's owner" : e.waitingFor === 'JOINER_OWNER' ? "the joining agent's owner" : 'the responder'}.`
            : null,
    };
  }
}
