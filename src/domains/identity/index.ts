import type { Area } from '../../framework/index.ts';
import { jobFailureLevel } from '../../storage/unavailable.ts';
import { identityCli } from './cli.ts';
import { identityDoors } from './console/doors.ts';
import { ClientMetadataDocuments } from './credentials/client-metadata.ts';
import { DeviceService } from './credentials/device.ts';
import { PUBLISHED_IDENTITY_LIMITS } from './credentials/limits.ts';
import { OAuthClientService } from './credentials/oauth-clients.ts';
import { OAuthConsentService } from './credentials/oauth-consent.ts';
import { OAuthGrantService } from './credentials/oauth-grants.ts';
import { mcpResource } from './credentials/oauth-request.ts';
import { SecretGuard } from './credentials/secret-guard.ts';
import * as credentialTables from './credentials/tables.ts';
import { TokenService } from './credentials/tokens.ts';
import { DomainVerifier } from './domain-verification.ts';
import { IDENTITY_ERRORS } from './errors.ts';
import { Housekeeper, sweepIdentity } from './housekeeping.ts';
import { IdentityService } from './identities.ts';
import { ManagementService } from './management.ts';
import { identityOperations } from './operations.ts';
import { Operators } from './operators.ts';
import { OwnerService } from './owners.ts';
import { SessionService } from './sessions.ts';
import { type IdentitySettings, identitySettings } from './settings.ts';
import * as identityTables from './tables.ts';
import {
  type CampaignLinks,
  type GuestPairing,
  noCampaignLinks,
  noGuestPairing,
  noStanding,
  type StandingColumn,
} from './types.ts';

/** The identity area's public surface: owners, agents, credentials, pairing, MCP sessions. */

export {
  describeAgents,
  describeOwnerAgents,
  findAgent,
} from './agent-repo.ts';
export {
  arenaParticipants,
  isArenaReviewer,
  setArenaActivation,
  setArenaReviewer,
} from './arena-activation.ts';
export { emailFlag } from './cli.ts';
export { type AgentPageChange, type AgentPagePart, agentPageChange } from './console/agent-parts.ts';
export { claimsLine, claimsPanel } from './console/claims.ts';
export type { Authenticated } from './credentials/authenticate.ts';
export { DeviceService } from './credentials/device.ts';
export {
  type DeviceRequest,
  deviceRequestSchema,
  formatUserCode,
  normalizeUserCode,
} from './credentials/device-request.ts';
export { IDENTITY_LIMITS } from './credentials/limits.ts';
export {
  type ClientAuthMethod,
  DEVICE_GRANT,
  OAuthClientService,
  type RegisteredClient,
  type Registration,
  redirectUriProblem,
  registrationSchema,
} from './credentials/oauth-clients.ts';
export { OAuthConsentService } from './credentials/oauth-consent.ts';
export { OAuthGrantService } from './credentials/oauth-grants.ts';
export {
  type AuthorizeOutcome,
  type AuthorizeQuery,
  type ConsentRequest,
  mcpResource,
  returnHost,
} from './credentials/oauth-request.ts';
export {
  type IssuedOwnerToken,
  OWNER_TOKEN_PREFIX,
  OwnerTokenService,
  type OwnerTokenView,
} from './credentials/owner-tokens.ts';
export { SecretGuard } from './credentials/secret-guard.ts';
export { type TokenAnswer, TokenService } from './credentials/tokens.ts';
export { DomainVerifier } from './domain-verification.ts';
export { Housekeeper, RETENTION, sweepIdentity } from './housekeeping.ts';
export { IdentityService } from './identities.ts';
export { activateForCampaigns, guestBound, ManagementService } from './management.ts';
export {
  inactiveAgent,
  type MatchingConsent,
  matchingAgent,
  publicMatchingAgent,
  revokedAgent,
  setMatchingConsent,
} from './matching-consent.ts';
export {
  enqueueToolsChanged,
  NOTIFY_CHANNEL,
  type PendingNotification,
  takeNotifications,
} from './notifications.ts';
export { ALWAYS, whenActive } from './operations.ts';
export { Operators } from './operators.ts';
export { standingOutput } from './outputs.ts';
export type { InboxMessage } from './owner-messages.ts';
export { type ConsoleOwner, OwnerService, type StartedSession } from './owners.ts';
export { inactiveReason, isActive } from './policy.ts';
export { presentAbout } from './present.ts';
export { SessionService } from './sessions.ts';
export { presentStanding } from './standing.ts';
export {
  type AboutYou,
  type Agent,
  type Caller,
  type CampaignLink,
  type CampaignLinks,
  type CampaignStanding,
  type GuestPairing,
  LINKS_SHOWN,
  noCampaignLinks,
  noGuestPairing,
  noStanding,
  type StandingColumn,
} from './types.ts';

/** Owners, agent identities, their credentials (tokens, keys, pairing, native OAuth) and MCP sessions. */
export const identityArea = {
  name: 'identity',
  settings: identitySettings,
  cli: identityCli,
  tables: { ...identityTables, ...credentialTables },
  errors: IDENTITY_ERRORS,
  operations: identityOperations,
  doors: identityDoors,
  limits: PUBLISHED_IDENTITY_LIMITS,
  extensionDefaults: {
    callerStanding: noStanding,
    campaignLinks: noCampaignLinks,
    guestPairing: noGuestPairing,
  },
  start({ database, clock, secret, config, outbound, logger, extensions }) {
    const resource = mcpResource(config.baseUrl);
    const tokens = new TokenService(database, clock, secret, resource);
    // Ends idle sessions and deletes what is over; every replica may run it.
    const housekeeper = new Housekeeper(
      () => sweepIdentity(database.db, clock.now()),
      (result) =>
        result instanceof Error
          ? logger[jobFailureLevel(result)](
              { err: result },
              'housekeeping failed; it runs again in ten minutes',
            )
          : logger.debug({ result }, 'housekeeping done'),
    );
    const clientDocuments = new ClientMetadataDocuments(database, clock, outbound.fetcher);
    const identity = new IdentityService(
      database,
      clock,
      resource,
      extensions.callerStanding,
      extensions.campaignLinks,
    );
    return {
      services: {
        identity,
        operators: new Operators(identity, config.operatorEmails),
        sessions: new SessionService(database, clock),
        tokens,
        device: new DeviceService(database, clock, tokens, config.baseUrl, extensions.guestPairing),
        management: new ManagementService(database, clock),
        owners: new OwnerService(database, clock, { openSignup: config.openSignup }),
        oauthClients: new OAuthClientService(database, clock),
        secrets: new SecretGuard(database, clock),
        clientDocuments,
        oauth: new OAuthConsentService(database, clock, config.baseUrl, clientDocuments),
        grants: new OAuthGrantService(database, clock, tokens),
        domains: new DomainVerifier(database, clock, secret, outbound.resolver, outbound.fetcher),
      },
      workers: [housekeeper],
    };
  },
} satisfies Area;

/** The area's tables, added to the schema type of every database handle (storage/tables.ts). */
type OwnTables = typeof identityTables & typeof credentialTables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** What identity asks of other areas (docs/architecture.md, Extensions). */
declare module '../../framework/area.ts' {
  interface Extensions {
    /** The caller's campaign standing, read in the same query as the credential. */
    callerStanding: StandingColumn;
    /** The campaigns an identity is tied to, for its status answers (identity, capabilities). */
    campaignLinks: CampaignLinks;
    /** Whether a matching request takes a guest identity, and the guest's join (pairing). */
    guestPairing: GuestPairing;
  }
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** owner accounts. */
    own: 'identity';
    /** agent identities. */
    agt: 'identity';
    /** project keys. */
    key: 'identity';
    /** MCP sessions (opaque ids). */
    ses: 'identity';
    /** audit entries. */
    aud: 'identity';
    /** device authorizations. */
    dva: 'identity';
    /** tokens. */
    tok: 'identity';
    /** bootstrap tokens. */
    bst: 'identity';
    /** (reserved; unused). */
    osn: 'identity';
    /** OAuth clients. */
    cli: 'identity';
    /** OAuth consent requests. */
    orq: 'identity';
    /** OAuth grants. */
    grt: 'identity';
    /** owner messages. */
    omg: 'identity';
    /** owner API tokens. */
    otk: 'identity';
  }
}

/** Its settings, joined into Config (config/settings.ts). */
declare module '../../config/settings.ts' {
  interface AreaSettings extends IdentitySettings {}
}
