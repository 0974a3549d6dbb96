import type { DoorContext } from '../../../framework/index.ts';
import type { ClientMetadataDocuments } from '../credentials/client-metadata.ts';
import type { DeviceService } from '../credentials/device.ts';
import type { OAuthClientService } from '../credentials/oauth-clients.ts';
import type { OAuthConsentService } from '../credentials/oauth-consent.ts';
import type { OAuthGrantService } from '../credentials/oauth-grants.ts';
import type { SecretGuard } from '../credentials/secret-guard.ts';
import type { TokenService } from '../credentials/tokens.ts';
import type { IdentityService } from '../identities.ts';
import type { ManagementService } from '../management.ts';
import type { OwnerService } from '../owners.ts';

/** The services identity's pages, owner routes and OAuth endpoints use. */
export interface IdentityDoorServices {
  owners: OwnerService;
  management: ManagementService;
  device: DeviceService;
  oauth: OAuthConsentService;
  identity: IdentityService;
  tokens: TokenService;
  secrets: SecretGuard;
  oauthClients: OAuthClientService;
  clientDocuments: ClientMetadataDocuments;
  grants: OAuthGrantService;
}

export type ConsoleContext = DoorContext<IdentityDoorServices>;
