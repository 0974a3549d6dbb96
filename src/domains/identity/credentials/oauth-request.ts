import { createHash } from 'node:crypto';
import { DEFAULT_SCOPE, MCP_SCOPES, parseScopes, SCOPE_MEANINGS } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret } from '../../../kernel/ids.ts';
import type * as oauthRepo from './oauth-repo.ts';
import type { ExtendableIdentity } from './oauth-step-up.ts';

/** The shapes and rules of one authorization request: what comes in, what goes back, who decides. */

/** The query of GET /oauth/authorize, as received. */
export interface AuthorizeQuery {
  response_type?: string;
  client_id?: string;
  redirect_uri?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  state?: string;
  scope?: string;
  resource?: string;
}

/**
 * What to do with an authorization request: show an error on the page (the client or its
 * redirect URI cannot be trusted with one), send an error back to the client, or review it.
 */
export type AuthorizeOutcome =
  | { kind: 'page_error'; message: string }
  | { kind: 'redirect'; location: string }
  | { kind: 'error_return'; error: string; description: string; location: string; host: string }
  /** `binding` goes to the browser as an HttpOnly cookie: only that browser may decide the request. */
  | { kind: 'review'; requestId: string; binding: string };

/** A consent request as the review page and `GET /v1/oauth/requests/{id}` show it. */
export interface ConsentRequest {
  request_id: string;
  status: 'PENDING' | 'APPROVED' | 'DECLINED' | 'EXPIRED';
  client: {
    client_id: string;
    client_name: string;
    name_is_verified: false;
    /**
     * For a client named by its metadata document's URL: the host Cairn read that document from
     * over https, which is what vouches for the name. Null for a registered client.
     */
    metadata_document_host: string | null;
  };
  /** What the owner should weigh before allowing (a localhost-only return address, for one). */
  warnings: string[];
  redirect_uri: string;
  /** The host (or private-use scheme) the browser will be sent back to, for the owner to check. */
  return_host: string;
  scope: string;
  /** Each requested scope with what it lets the application do. */
  scopes: Array<{ scope: string; meaning: string }>;
  /**
   * Identities of this owner already connected through this client (oauth-step-up.ts): the
   * owner may give the requested scopes to one of them instead of a new identity.
   */
  extendable: ExtendableIdentity[];
  grants: string[];
  expires_at: string;
}

/** A redirect URI with OAuth parameters added to its query (RFC 6749 §4.1.2). */
export function withParams(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return url.href;
}

/** What the owner is shown as the return address: the host, or the private-use scheme. */
export function returnHost(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'https:' || url.protocol === 'http:' ? url.host : `${url.protocol}//`;
}

/** A native app's redirect URI: loopback http or a private-use scheme (RFC 8252 §7). */
export function isNativeRedirect(uri: string): boolean {
  const url = new URL(uri);
  if (url.protocol === 'http:') return true; // registration admits http only on loopback
  return url.protocol !== 'https:';
}

export const S256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * Who may see and decide a request: while pending, a signed-in owner in the browser that started
 * it (it holds the binding cookie; a leaked request id alone is not enough); once decided, only
 * the owner who decided it.
 */
export function mayDecide(r: oauthRepo.RequestRow, ownerId: string, binding: string | undefined): boolean {
  if (r.status !== 'PENDING') return r.ownerId === ownerId;
  // A request without a binding (none are made so) is decided by nobody: the binding is not optional.
  return (
    r.browserBindingHash !== null && binding !== undefined && hashSecret(binding) === r.browserBindingHash
  );
}

export function notInThisBrowser(requestId: string): DomainError {
  return new DomainError(
    'NOT_FOUND',
    'No such authorization request in this browser. Start again from the application, in the browser you sign in with.',
    { request_id: requestId },
  );
}

/** The one protected resource (RFC 8707, RFC 9728): this server's MCP endpoint. */
export const mcpResource = (baseUrl: string) => `${baseUrl}/mcp`;

/**
 * Whether a device pairing's requested scope (RFC 6749 §3.3: space-delimited) asks for nothing
 * beyond `mcp`: a paired runtime's tokens carry no narrower scope (framework/scopes.ts), so
 * asking for one is refused rather than silently widened.
 */
export function onlyDefaultScope(scope: string | undefined): boolean {
  return (scope ?? DEFAULT_SCOPE).split(' ').every((s) => s === '' || s === DEFAULT_SCOPE);
}

/** Whether every scope a request names is one Cairn grants. */
export const scopesKnown = (scope: string | undefined): boolean => parseScopes(scope) !== null;

/** The refusal of a scope Cairn does not grant, naming those it does. */
export const UNKNOWN_SCOPE = `Scopes are ${MCP_SCOPES.join(', ')}: ${MCP_SCOPES.map((s) => `${s} (${SCOPE_MEANINGS[s]})`).join('; ')}.`;

const LOOPBACK_LITERALS = new Set(['127.0.0.1', '[::1]']);

/**
 * Whether a redirect URI sent to /oauth/authorize matches one the client registered: exactly,
 * or, for a loopback IP literal over http, with any port (RFC 8252 §7.3): native apps listen
 * on a port the system gives them at run time. Scheme, host, path and query must still match.
 */
export function redirectMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const asked = loopbackWithoutPort(presented);
  return asked !== null && registered.some((uri) => loopbackWithoutPort(uri) === asked);
}

/** A loopback IP literal http URI with its port taken out; null for any other URI. */
function loopbackWithoutPort(uri: string): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' || !LOOPBACK_LITERALS.has(url.hostname)) return null;
  if (url.username || url.password || url.hash) return null;
  url.port = '';
  return url.href;
}
