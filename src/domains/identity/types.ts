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
  mode: 'NONE' | 'READ';
  status: 'ACTIVE' | 'SUSPENDED' | 'REVOKED';
  about: AboutYou;
  /** The owner's consent to matching, and to listing its profile publicly. */
  matchingEnabled: boolean;
  matchingPublic: boolean;
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
 * COORDINATOR or MEMBER: active in at least one campaign (coordinating one); INVITED: an
 * invitation or accepted application waits for it to join; NONE: no campaign at all.
 */
export type CampaignStanding = 'NONE' | 'INVITED' | 'MEMBER' | 'COORDINATOR';

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
