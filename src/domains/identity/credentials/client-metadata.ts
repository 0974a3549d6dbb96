import { z } from 'zod';
import type { Clock } from '../../../kernel/clock.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import { freshSeconds } from '../../../net/freshness.ts';
import type { FetchOptions, FetchResult } from '../../../net/guarded-fetch.ts';
import { NetRefusal } from '../../../net/refusal.ts';
import type { Database } from '../../../storage/database.ts';
import { checkClientMetadata, cleanClientName } from './oauth-clients.ts';
import * as oauthRepo from './oauth-repo.ts';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document-02; the preferred
 * registration of MCP's 2026-07-28 authorization spec): a client names itself with an https URL
 * as its client_id, and Cairn reads the client's metadata from that URL instead of a registration
 * call. The copy read is kept as the client's row in oauth_clients (its id is the URL, which no
 * registered client's `cli_` id can be), so codes, connections and tokens refer to it as to any
 * client, and the next authorization request within its HTTP freshness reads no document again.
 */

/** Cairn's bounds on the document read (docs/decisions.md, "Client ID Metadata Documents"). */
export const CLIENT_DOCUMENT = {
  /** The draft's recommended read limit (§8.8); a larger document is refused, not cut. */
  maxBytes: 5 * 1024,
  /** A person waits on the consent page behind this read. */
  timeoutMs: 5_000,
  /** How long a document without caching headers is used before it is read again. */
  defaultFreshSeconds: 600,
  /** The longest any document is used before it is read again, whatever its headers say. */
  maxFreshSeconds: 86_400,
  /** A client_id URL's length, like any redirect URI's. */
  urlChars: 2_000,
} as const;

/** The fetcher's low-level read: URL, address and port checks, caps and deadline, no robots.txt. */
export interface DocumentReader {
  fetch(url: string, accept: string, maxRedirects: number, options?: FetchOptions): Promise<FetchResult>;
}

/**
 * Whether a client_id is meant as a Client Identifier URL: it has a URL scheme. Such ids are
 * checked by clientIdUrlProblem and never looked up as registered clients.
 */
export function isClientIdUrl(clientId: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(clientId);
}

/**
 * Why a client_id is not a Client Identifier URL (draft §3), or null: https, no user
 * information, a path, no dot segments, no fragment. Checked on the string as sent, since it is
 * compared exactly and never normalized.
 */
export function clientIdUrlProblem(raw: string): string | null {
  if (raw.length > CLIENT_DOCUMENT.urlChars) return `is longer than ${CLIENT_DOCUMENT.urlChars} characters`;
  if (/[^\x21-\x7e]/.test(raw)) return 'must be an ASCII URL without spaces (percent-encode the rest)';
  if (!raw.startsWith('https://')) return 'must be an https:// URL';
  const afterScheme = raw.slice('https://'.length);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  if (authority.includes('@')) return 'must not carry user information (user@)';
  if (raw.includes('#')) return 'must not have a fragment';
  const rest = afterScheme.slice(authority.length);
  if (!rest.startsWith('/')) return 'must have a path, such as https://app.example/oauth/client.json';
  const path = rest.split('?', 1)[0] ?? '';
  if (path.split('/').some((segment) => /^(\.|%2e){1,2}$/i.test(segment))) {
    return 'must not have . or .. path segments';
  }
  try {
    new URL(raw);
  } catch {
    return 'is not a valid URL';
  }
  return null;
}

/** The document's fields Cairn uses; others are ignored (RFC 7591 §2). */
const documentSchema = z.object({
  client_id: z.string().max(CLIENT_DOCUMENT.urlChars),
  client_name: z.string().min(1).max(1_000),
  redirect_uris: z.array(z.string().max(2_000)).max(10).optional(),
  grant_types: z.array(z.string().max(200)).max(10).optional(),
  response_types: z.array(z.string().max(100)).max(10).optional(),
  token_endpoint_auth_method: z.string().max(100).optional(),
  client_uri: z.string().max(2_000).optional(),
  software_id: z.string().max(200).optional(),
  software_version: z.string().max(100).optional(),
});

/** The client behind a Client Identifier URL, read from its document when the kept copy is stale. */
export class ClientMetadataDocuments {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly reader: DocumentReader,
  ) {}

  /**
   * The client a Client Identifier URL names, as its document says now: the kept copy while it
   * is fresh, else the document read again (and kept, unless it says not to be). Throws
   * invalid_client saying what is wrong: the URL, the read, or the document. A failed read is
   * never kept, and a stale copy is not used in its place (draft §4.1: abort the request).
   */
  async client(clientId: string): Promise<oauthRepo.ClientRow> {
    const problem = clientIdUrlProblem(clientId);
    if (problem) throw refused(`The client_id ${clientId.slice(0, 200)} ${problem}.`);
    const now = this.clock.now();
    const kept = await oauthRepo.findClient(this.database.db, clientId);
    const freshUntil = kept?.metadata.fresh_until;
    if (kept && typeof freshUntil === 'string' && Date.parse(freshUntil) > now.getTime()) return kept;
    const { document, fresh } = await this.read(clientId, now);
    const row = await oauthRepo.keepDocumentClient(this.database.db, {
      id: clientId,
      secretHash: null,
      clientName: cleanClientName(document.client_name),
      redirectUris: document.redirectUris,
      tokenEndpointAuthMethod: 'none',
      grantTypes: document.grants,
      metadata: {
        source: 'client_id_metadata_document',
        fetched_at: now.toISOString(),
        fresh_until: new Date(now.getTime() + fresh * 1000).toISOString(),
        ...(document.client_uri ? { client_uri: document.client_uri } : {}),
        ...(document.software_id ? { software_id: document.software_id } : {}),
        ...(document.software_version ? { software_version: document.software_version } : {}),
      },
      createdAt: now,
    });
    return row;
  }

  /** Reads and checks the document at `url`: 200, no redirect, at most 5 KiB, valid metadata. */
  private async read(url: string, now: Date) {
    let res: FetchResult;
    try {
      res = await this.reader.fetch(url, 'application/json', 0, {
        maxBytes: CLIENT_DOCUMENT.maxBytes,
        timeoutMs: CLIENT_DOCUMENT.timeoutMs,
      });
    } catch (err) {
      if (!(err instanceof NetRefusal)) throw err;
      throw refused(`Cairn could not read the client's metadata document at ${url}: ${readFailure(err)}`);
    }
    if (res.status !== 200) {
      throw refused(
        `The client's metadata document at ${url} answered HTTP ${res.status}; it must answer 200 with the JSON document.`,
      );
    }
    let json: unknown;
    try {
      json = JSON.parse(res.body.toString('utf8'));
    } catch {
      throw refused(`The client's metadata document at ${url} is not valid JSON.`);
    }
    return { document: checkDocument(url, json), fresh: freshSeconds(res.headers, bounds, now) };
  }
}

const bounds = {
  defaultSeconds: CLIENT_DOCUMENT.defaultFreshSeconds,
  maxSeconds: CLIENT_DOCUMENT.maxFreshSeconds,
};

/** A document's metadata under the rules for any client, plus the document's own (draft §4). */
function checkDocument(url: string, json: unknown) {
  const where = `The client's metadata document at ${url}`;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw refused(`${where} is not a JSON object.`);
  }
  const parsed = documentSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0];
    throw refused(
      `${where} is not valid: ${first?.path.map(String).join('.') || 'document'}: ${first?.message}.`,
    );
  }
  const doc = parsed.data;
  if (doc.client_id !== url) {
    throw refused(`${where} names client_id ${doc.client_id.slice(0, 200)}; it must be exactly its own URL.`);
  }
  // No shared secret can exist between a self-published client and Cairn (draft §4.1).
  if ('client_secret' in json || 'client_secret_expires_at' in json) {
    throw refused(`${where} holds a client_secret; a published document must hold no secret.`);
  }
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') {
    throw refused(
      `${where} asks for token_endpoint_auth_method ${method.slice(0, 80)}; Cairn takes such clients as public clients only ("none", with PKCE).`,
    );
  }
  try {
    const checked = checkClientMetadata(doc, 'none');
    return { ...doc, grants: checked.grants, redirectUris: checked.redirectUris };
  } catch (err) {
    if (err instanceof OAuthError) throw refused(`${where} is not valid: ${err.description}`);
    throw err;
  }
}

function refused(description: string): OAuthError {
  return new OAuthError('invalid_client', description);
}

/** A read failure in words for the page the person sees. */
function readFailure(err: NetRefusal): string {
  if (err.reason === 'TOO_MANY_REDIRECTS') {
    return 'it answered with a redirect, which is not followed: the document must be served at the client_id URL itself.';
  }
  if (err.reason === 'RESPONSE_TOO_LARGE') {
    return `it is larger than ${CLIENT_DOCUMENT.maxBytes} bytes.`;
  }
  return err.message;
}
