/** The identity area's public surface: owners, agents, credentials, pairing, MCP sessions. */

export {
  describeAgents,
  describeOwnerAgents,
  findAgent,
  noStanding,
  type StandingColumn,
} from './agent-repo.ts';
export {
  type DeviceRequest,
  DeviceService,
  deviceRequestSchema,
  formatUserCode,
  normalizeUserCode,
} from './credentials/device.ts';
export {
  type ClientAuthMethod,
  OAuthClientService,
  type RegisteredClient,
  type Registration,
  redirectUriProblem,
  registrationSchema,
} from './credentials/oauth-clients.ts';
export { OAuthConsentService } from './credentials/oauth-consent.ts';
export {
  type AuthorizeOutcome,
  type AuthorizeQuery,
  type ConsentRequest,
  returnHost,
} from './credentials/oauth-request.ts';
export { type TokenAnswer, TokenService } from './credentials/tokens.ts';
export { DomainVerifier } from './domain-verification.ts';
export { Housekeeper, RETENTION, sweepIdentity } from './housekeeping.ts';
export { type Authenticated, IdentityService } from './identities.ts';
export { ManagementService } from './management.ts';
export {
  enqueueToolsChanged,
  NOTIFY_CHANNEL,
  type PendingNotification,
  takeNotifications,
} from './notifications.ts';
export { ALWAYS, identityAlwaysOperations, identityOperations, whenActive } from './operations.ts';
export type { InboxMessage } from './owner-messages.ts';
export { type ConsoleOwner, OwnerService, type StartedSession } from './owners.ts';
export { inactiveReason, isActive } from './policy.ts';
export { presentAbout } from './present.ts';
export { SessionService } from './sessions.ts';
export type { AboutYou, Agent, Caller, CampaignStanding } from './types.ts';
