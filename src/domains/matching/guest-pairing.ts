import { eq } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import { admitMatched, campaignForMatching } from '../campaigns/index.ts';
import type { GuestPairing } from '../identity/index.ts';
import { beginMatchingWrite, recordChanges } from './changes.ts';
import { effective } from './request-view.ts';
import { matchingRequests } from './tables.ts';

/**
 * Cross-workspace guest pairing (docs/matching.md), as identity's device pairing asks it
 * (`Extensions.guestPairing`): the joining agent of a request whose owner chose a guest identity
 * asks for the pairing with its own bearer; its owner approves at /pair, and the new identity
 * joins the request's campaign in the same transaction, bound to it alone.
 */
export const matchingGuestPairing: GuestPairing = {
  async check(ex: Executor, requestId: string, participantId: string, now: Date) {
    const [row] = await ex.select().from(matchingRequests).where(eq(matchingRequests.id, requestId));
    // Someone else's request reads exactly like a missing one.
    if (!row || row.joinerAgentId !== participantId) {
      return { refused: `No matching request ${requestId} in which your agent would join a campaign.` };
    }
    const e = effective(row, now);
    if (e.waitingFor !== 'GUEST_PAIRING') {
      return {
        refused:
          e.state === 'JOINED' || e.state === 'STOPPED'
            ? `Matching request ${requestId} has ended (${e.state}); it takes no guest.`
            : `Matching request ${requestId} does not wait for a guest identity: its joining agent's owner chooses one when approving (join_as GUEST).`,
      };
    }
    const campaign = await campaignForMatching(ex, row.campaignId);
    if (!campaign?.open) {
      return {
        refused: `The campaign of this matching request is ${campaign?.stopping ? 'stopping' : 'closed'}.`,
      };
    }
    return { campaignId: row.campaignId, campaignTitle: campaign.title, approverOwnerId: row.joinerOwnerId };
  },

  async admit(ex: Executor, input: { requestId: string; guestAgentId: string; ownerId: string }, now: Date) {
    await beginMatchingWrite(ex);
    const [row] = await ex
      .select()
      .from(matchingRequests)
      .where(eq(matchingRequests.id, input.requestId))
      .for('update');
    if (!row || effective(row, now).waitingFor !== 'GUEST_PAIRING') {
      // Withdrawn, declined or joined by another approval while this one was being decided.
      throw new DomainError(
        'CONFLICT',
        `Matching request ${input.requestId} no longer waits for a guest identity; nothing was approved.`,
        { matching_request_id: input.requestId },
        { next: 'Decline this pairing; the request’s state is on /console/matching.' },
      );
    }
    await admitMatched(
      ex,
      {
        campaignId: row.campaignId,
        agentId: input.guestAgentId,
        requestId: row.id,
        decidedBy: input.ownerId,
      },
      now,
    );
    await ex
      .update(matchingRequests)
      .set({
        state: 'JOINED',
        waitingFor: null,
        joinedAgentId: input.guestAgentId,
        endedAt: now,
        updatedAt: now,
      })
      .where(eq(matchingRequests.id, row.id));
    await recordChanges(ex, [{ requestId: row.id, state: 'JOINED' }], now);
  },
};
