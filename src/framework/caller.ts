/**
 * Who calls an operation. The framework owns the type (it runs operations for a caller and knows
 * no area); identity fills it in when it authenticates a credential, and re-exports it.
 */

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
  /**
   * The OAuth scopes its access token was approved for (scopes.ts); absent when the credential
   * carries no scope limit (a project key, a paired device's token).
   */
  scopes?: readonly string[];
}

/**
 * COORDINATOR or MEMBER: active in at least one open campaign (coordinating one); INVITED: an
 * invitation or accepted application waits for it to join; FORMER: a member only of closed
 * campaigns (it still reads them); NONE: no campaign at all, or the identity is not active.
 */
export type CampaignStanding = 'NONE' | 'FORMER' | 'INVITED' | 'MEMBER' | 'COORDINATOR';
