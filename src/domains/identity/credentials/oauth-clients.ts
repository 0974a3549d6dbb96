import { z } from 'zod';
import { MCP_SCOPES, parseScopes, scopeString } from '../../../framework/index.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { hashSecret, newId, newOpaqueId } from '../../../kernel/ids.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import type { Database } from '../../../storage/database.ts';
import { IDENTITY_LIMITS } from './limits.ts';
import * as oauthRepo from './oauth-repo.ts';

/** Grants a registered client may use at the token endpoint. */
/** The device authorization grant's type (RFC 8628 §3.4). */
export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
const CLIENT_GRANTS = ['authorization_code', 'refresh_token', DEVICE_GRANT] as const;
const AUTH_METHODS = ['none', 'client_secret_post', 'client_secret_basic'] as const;
const MAX_REDIRECT_URIS = 10;
const MAX_URI_CHARS = 2_000;

/**
 * RFC 7591 client metadata: every field optional; unknown fields are ignored (§2), known ones
 * are checked. Strings are bounded because anyone may register.
 */
export const registrationSchema = z.object({
  redirect_uris: z.array(z.string().max(MAX_URI_CHARS)).max(MAX_REDIRECT_URIS).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  grant_types: z.array(z.string().max(200)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  client_name: z.string().max(200).optional(),
  scope: z.string().max(500).optional(),
  client_uri: z.string().max(MAX_URI_CHARS).optional(),
  logo_uri: z.string().max(MAX_URI_CHARS).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
});
export type Registration = z.infer<typeof registrationSchema>;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** How a client presented its credentials at the token or revocation endpoint. */
export type ClientAuthMethod = 'none' | 'client_secret_post' | 'client_secret_basic';

/**
 * The application's self-chosen name as owners will see it: control, bidirectional, zero-width
 * and tag characters removed (they could disguise it), cut to the identity name limit.
 */
export function cleanClientName(raw: string | undefined): string {
  const cleaned = (raw ?? '')
    .replace(/[\p{Cc}\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff\u{e0000}-\u{e007f}]/gu, '')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, IDENTITY_LIMITS.displayName.maxChars);
  return cleaned || 'Unnamed MCP client';
}

/**
 * Where an authorization code may be sent (RFC 8252 §7): an https address, an http address on
 * the loopback interface (a native app's local listener), or a private-use scheme in reverse
 * domain form (`com.example.app:/callback`). No fragments.
 */
export function redirectUriProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `${raw.slice(0, 100)} is not an absolute URI`;
  }
  if (url.hash || raw.includes('#')) return 'a redirect URI must not have a fragment';
  // Redirect URIs are compared exactly (RFC 9700 §2.1), so a pattern could never match one.
  if (raw.includes('*') || /%2a/i.test(raw)) return 'a redirect URI is exact: wildcards are not allowed';
  if (url.username || url.password)
    return 'a redirect URI must not carry user information (user@ or user:password@)';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname)
      ? null
      : 'http is allowed only on loopback (127.0.0.1, [::1], localhost)';
  }
  const scheme = url.protocol.slice(0, -1);
  if (/^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+$/i.test(scheme)) return null;
  return `the scheme ${scheme}: is not allowed; use https, loopback http, or a private-use scheme like com.example.app:`;
}

/** A client's grants, redirect URIs, authentication method and response types, checked. */
export interface CheckedMetadata {
  grants: string[];
  redirectUris: string[];
  method: ClientAuthMethod;
  responses: string[];
}

/**
 * The rules every client's metadata meets, registered (RFC 7591) or published at its client_id
 * URL: offered grants only, redirect URIs with the code grant and only then, each allowed by
 * redirectUriProblem, response types that follow the grants, and a known authentication method
 * (`defaultMethod` when none is named). Throws invalid_client_metadata or invalid_redirect_uri.
 */
export function checkClientMetadata(
  input: Pick<
    Registration,
    'grant_types' | 'redirect_uris' | 'response_types' | 'token_endpoint_auth_method'
  >,
  defaultMethod: ClientAuthMethod,
): CheckedMetadata {
  const grants = input.grant_types ?? ['authorization_code'];
  const unknownGrant = grants.find((g) => !(CLIENT_GRANTS as readonly string[]).includes(g));
  const redirects = grants.includes('authorization_code');
  if (unknownGrant || !(redirects || grants.includes(DEVICE_GRANT))) {
    throw new OAuthError(
      'invalid_client_metadata',
      `grant_types must include authorization_code or ${DEVICE_GRANT} (RFC 8628), and may add refresh_token${unknownGrant ? `; ${unknownGrant.slice(0, 80)} is not offered to registered clients` : ''}.`,
    );
  }
  const redirectUris = input.redirect_uris ?? [];
  // A device-flow client has no redirection endpoint (RFC 8628 §3): redirect URIs go with codes.
  if (redirects && redirectUris.length === 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris must name at least one redirect URI.');
  }
  for (const uri of redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw new OAuthError('invalid_redirect_uri', problem);
  }
  const method = input.token_endpoint_auth_method ?? defaultMethod;
  if (!(AUTH_METHODS as readonly string[]).includes(method)) {
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method must be one of ${AUTH_METHODS.join(', ')}.`,
    );
  }
  if (!redirects && redirectUris.length > 0) {
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris are for the authorization_code grant only.');
  }
  const responses = input.response_types ?? (redirects ? ['code'] : []);
  const expected = redirects ? ['code'] : [];
  if (responses.length !== expected.length || responses.some((r, i) => r !== expected[i])) {
    throw new OAuthError(
      'invalid_client_metadata',
      redirects
        ? 'response_types must be ["code"].'
        : 'response_types must be [] without authorization_code.',
    );
  }
  return { grants, redirectUris, method: method as ClientAuthMethod, responses: expected };
}

/** invalid_client for an id Cairn does not know, saying how that kind of client becomes known. */
function unknownClient(clientId: string | undefined): OAuthError {
  return new OAuthError(
    'invalid_client',
    clientId?.startsWith('https://')
      ? 'Unknown client_id: a client named by its metadata document URL becomes known at /oauth/authorize (or /oauth/device_authorization).'
      : 'Unknown client_id; register the client again.',
  );
}

export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_secret?: string;
  client_secret_expires_at?: number;
  client_name: string;
  redirect_uris: string[];
  token_endpoint_auth_method: string;
  grant_types: string[];
  response_types: string[];
  scope: string;
  client_uri?: string;
  software_id?: string;
  software_version?: string;
}

/** Dynamic client registration: any MCP client may register itself; a secret only for confidential ones. */
export class OAuthClientService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
  ) {}

  async register(input: Registration): Promise<RegisteredClient> {
    // RFC 7591 §2 makes client_secret_basic the default; MCP clients register as public clients with "none".
    const {
      grants,
      redirectUris,
      method,
      responses: expected,
    } = checkClientMetadata(input, 'client_secret_basic');
    // The scopes it says it will ask for; each authorization request asks again, and the owner decides.
    const scopes = parseScopes(input.scope);
    if (!scopes) {
      throw new OAuthError('invalid_client_metadata', `Scopes are ${MCP_SCOPES.join(', ')}.`);
    }
    const now = this.clock.now();
    const clientId = newId('cli', now);
    const secret = method === 'none' ? null : newOpaqueId();
    const name = cleanClientName(input.client_name);
    await oauthRepo.insertClient(this.database.db, {
      id: clientId,
      secretHash: secret ? hashSecret(secret) : null,
      clientName: name,
      redirectUris,
      tokenEndpointAuthMethod: method,
      grantTypes: grants,
      metadata: {
        ...(input.client_uri ? { client_uri: input.client_uri } : {}),
        ...(input.software_id ? { software_id: input.software_id } : {}),
        ...(input.software_version ? { software_version: input.software_version } : {}),
      },
      createdAt: now,
    });
    return {
      client_id: clientId,
      client_id_issued_at: Math.floor(now.getTime() / 1000),
      ...(secret ? { client_secret: secret, client_secret_expires_at: 0 } : {}),
      client_name: name,
      redirect_uris: redirectUris,
      token_endpoint_auth_method: method,
      grant_types: grants,
      response_types: expected,
      scope: scopeString(scopes),
      ...(input.client_uri ? { client_uri: input.client_uri } : {}),
      ...(input.software_id ? { software_id: input.software_id } : {}),
      ...(input.software_version ? { software_version: input.software_version } : {}),
    };
  }

  /**
   * Authenticates a client at the token or revocation endpoint: public clients by client_id,
   * confidential ones by their secret (in the body or by HTTP Basic, as registered).
   */
  /**
   * client_credentials asked by a registered client. Registered clients use the authorization
   * code and refresh grants only (client_credentials is for owner-created identities' bootstrap
   * tokens), so the answer is unauthorized_client (RFC 6749 §5.2) once a confidential client has
   * authenticated; a wrong secret is invalid_client as anywhere else.
   */
  async refuseClientCredentials(
    clientId: string,
    secret: string | undefined,
    method: ClientAuthMethod,
  ): Promise<never> {
    const client = await oauthRepo.findClient(this.database.db, clientId);
    if (client?.secretHash) await this.authenticate(clientId, secret, method);
    else if (!client) throw new OAuthError('invalid_client', 'Unknown client_id; register the client again.');
    throw new OAuthError(
      'unauthorized_client',
      'Registered clients use authorization_code and refresh_token; client_credentials is only for bootstrap tokens.',
    );
  }

  async authenticate(
    clientId: string | undefined,
    secret: string | undefined,
    method: ClientAuthMethod,
  ): Promise<oauthRepo.ClientRow> {
    const client = clientId ? await oauthRepo.findClient(this.database.db, clientId) : null;
    if (!client) throw unknownClient(clientId);
    // A client authenticates the way it registered (RFC 7591 §2): a public client sends no secret.
    if (method !== client.tokenEndpointAuthMethod) {
      throw new OAuthError(
        'invalid_client',
        `This client registered token_endpoint_auth_method ${client.tokenEndpointAuthMethod}; authenticate that way.`,
      );
    }
    if (client.secretHash && (!secret || hashSecret(secret) !== client.secretHash)) {
      throw new OAuthError('invalid_client', 'The client secret is missing or wrong.');
    }
    return client;
  }
}
