/** The states of a matching request and why one stopped (docs/matching.md). */

export const REQUEST_STATES = ['PROPOSED', 'TENTATIVE', 'JOINED', 'STOPPED'] as const;
export type RequestState = (typeof REQUEST_STATES)[number];
export type WaitingFor = 'RESPONDER' | 'CAMPAIGN_OWNER' | 'JOINER_OWNER' | 'GUEST_PAIRING';
export type StopReason =
  | 'DECLINED'
  | 'WITHDRAWN'
  | 'EXPIRED'
  | 'BLOCKED'
  | 'OWNER_DECLINED'
  | 'CONSENT_WITHDRAWN'
  | 'INTENT_WITHDRAWN'
  | 'CAMPAIGN_CLOSED'
  | 'CAMPAIGN_STOPPED'
  | 'AGENT_REVOKED';
