import { type SQL, sql } from 'drizzle-orm';
import type { CampaignStanding } from '../../framework/caller.ts';
import type { Executor } from '../../storage/database.ts';

export type { AboutYou, Agent, Caller, CampaignStanding } from '../../framework/caller.ts';

/**
 * The caller's campaign standing, as an SQL expression over the row "agents" of the lookup. The
 * campaigns area supplies it as an extension (`Extensions.callerStanding`), so authentication
 * stays one query and identity never names campaign tables.
 */
export type StandingColumn = SQL<CampaignStanding>;

/** One campaign an identity is active in or invited to, as whoami and capabilities_describe show it. */
export interface CampaignLink {
  campaign_id: string;
  title: string;
  role: 'COORDINATOR' | 'PARTICIPANT';
  /** ACTIVE: a member; INVITED: campaign_join accepts; OWNER_PENDING: the owner must accept first. */
  status: 'ACTIVE' | 'INVITED' | 'OWNER_PENDING';
}

/**
 * The open campaigns an identity is tied to, memberships first (at most `LINKS_SHOWN`). The
 * campaigns area supplies it (`Extensions.campaignLinks`); before it, there are none.
 */
export type CampaignLinks = (ex: Executor, agentId: string) => Promise<CampaignLink[]>;
export const LINKS_SHOWN = 20;
export const noCampaignLinks: CampaignLinks = async () => [];

/** The standing before campaigns are wired in (and in tests of identity alone). */
export const noStanding: StandingColumn = sql<CampaignStanding>`'NONE'`;

/**
 * Cross-workspace guest pairing (docs/matching.md): whether a participant of a matching request may
 * pair a guest identity for it, and the guest's join once its owner approves at /pair. The
 * matching area supplies it (`Extensions.guestPairing`); before it, no request takes a guest.
 */
export interface GuestPairing {
  /** The request's campaign and the owner who approves, or why the participant may not pair a guest for it. */
  check(
    ex: Executor,
    requestId: string,
    participantId: string,
    now: Date,
  ): Promise<{ campaignId: string; campaignTitle: string; approverOwnerId: string } | { refused: string }>;
  /** In the approval's transaction: the guest joins the request's campaign and the request ends JOINED. */
  admit(
    ex: Executor,
    input: { requestId: string; guestAgentId: string; ownerId: string },
    now: Date,
  ): Promise<void>;
}

export const noGuestPairing: GuestPairing = {
  check: async () => ({ refused: 'No matching request on this server takes a guest identity.' }),
  admit: async () => {
    throw new Error('guest pairing is not wired');
  },
};
