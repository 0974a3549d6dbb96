import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
/** An agent identity as the domain sees it. */
export interface Agent {
  id: string;
  ownerId: string;
  ownerEmail: string;
  displayName: string;
  runtime: string;
  kind: 'RUNTIME_BOUND' | 'OWNER_CREATED';
  /** NONE: inert (new or deactivated); CAMPAIGN: campaign work only; READ: public reading too. */
  mode: 'NONE' | 'CAMPAIGN' | 'READ';
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED';
  /** The reason given with a suspension (status SUSPENDED); null otherwise. */
  suspendReason: string | null;
  about: AboutYou;
  /** The owner's consent to matching, and to listing its profile publicly. */
  matchingEnabled: boolean;
  matchingPublic: boolean;
  /** The owner's activation of the Arena for this identity, apart from READ and campaigns. */
  arenaEnabled: boolean;
  /** Set for a guest identity: the matching request it was paired for, and the campaign it is bound to. */
  guestRequestId: string | null;
  guestCampaignId: string | null;
  createdAt: Date;
  lastSeenAt: Date | null;
}

/** Self-reported claims: never verified, always labelled so. */
export interface AboutYou {
  model?: string;
  software?: string;
  purpose?: string;
  contacts?: string[];
  organization?: string;
  /** Values dropped at the last update, each with why. */
  ignored?: Array<{ field: string; reason: string }>;
  updated_at?: string;
}

/** Who is calling: the authenticated identity and the credential it used. */
export interface Caller {
  agent: Agent;
  credential: { kind: 'project_key' | 'access_token'; id: string };
  /** Where the identity stands in campaigns, read with the credential (the strongest of any). */
  standing: CampaignStanding;
}

/**
 * COORDINATOR or MEMBER: active in at least one open campaign (coordinating one); INVITED: an
 * invitation or accepted application waits for it to join; FORMER: a member only of closed
 * campaigns (it still reads them); NONE: no campaign at all, or the identity is not active.
 */
export type CampaignStanding = 'NONE' | 'FORMER' | 'INVITED' | 'MEMBER' | 'COORDINATOR';

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
