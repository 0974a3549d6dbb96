import { parseScopes, scopeString } from '../../../framework/index.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret, newId, newOpaqueId } from '../../../kernel/ids.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import type { Database } from '../../../storage/database.ts';
import * as agentRepo from '../agent-repo.ts';
import { recordAudit } from '../audit.ts';
import { changeMode } from '../management.ts';
import { type ClientMetadataDocuments, isClientIdUrl } from './client-metadata.ts';
import { IDENTITY_LIMITS } from './limits.ts';
import * as oauthRepo from './oauth-repo.ts';
import {
  type AuthorizeOutcome,
  type AuthorizeQuery,
  type ConsentRequest,
  isNativeRedirect,
  mayDecide,
  mcpResource,
  notInThisBrowser,
  redirectMatches,
  returnHost,
  UNKNOWN_SCOPE,
  withParams,
} from './oauth-request.ts';
import { extendableIdentities, identityToExtend, scopeLines } from './oauth-step-up.ts';

const REQUEST_MS = 10 * 60_000;
const CODE_MS = 60_000;
const CONNECTION_MS = IDENTITY_LIMITS.oauthConnectionDays * 86_400_000;
const MAX_STATE_CHARS = 1_000;

/**
 * What the owner should weigh about a client before allowing it. A client named by its document's
 * URL whose every return address is on this computer proves nothing by that URL: any program
 * here could send the same client_id and listen there (MCP 2026-07-28, "Localhost Redirect URI
 * Risks"), so the page says so.
 */
function consentWarnings(client: oauthRepo.ClientRow): string[] {
  const localOnly = client.redirectUris.every((uri) => uri.startsWith('http://'));
  if (!isClientIdUrl(client.id) || !localOnly) return [];
  return [
    `${new URL(client.id).host} lets this application return only to this computer (localhost). Any program running here could present the same name, so allow only if you started this application yourself, just now.`,
  ];
}

/**
 * Native OAuth for MCP clients (SPEC Authentication 7): authorization requests, the owner's
 * consent, authorization codes with S256 PKCE (redeemed in oauth-grants.ts), and connections. Each approval creates an identity
 * of its own with public reading (READ) active, and nothing else.
 */
export class OAuthConsentService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly baseUrl: string,
    private readonly documents: ClientMetadataDocuments,
  ) {}

  /** The protected resource every token is bound to. */
  get resource(): string {
    return mcpResource(this.baseUrl);
  }

  /** Checks an authorization request (RFC 6749 §4.1.1, RFC 7636, RFC 8707) and files it for review. */
  async startAuthorization(q: AuthorizeQuery): Promise<AuthorizeOutcome> {
    let client: oauthRepo.ClientRow | null = null;
    try {
      client = await this.clientOf(q.client_id);
    } catch (err) {
      // The document could not be read or is not valid: nothing about the client can be trusted yet.
      if (err instanceof OAuthError) return { kind: 'page_error', message: err.description };
      throw err;
    }
    if (!client) {
      return {
        kind: 'page_error',
        message:
          'This application is not registered here (unknown client_id). It can register (RFC 7591) or name itself by the https URL of its client metadata document.',
      };
    }
    // Without a redirect URI the client registered, errors must not leave this page (§4.1.2.1).
    // OAuth 2.1 and the MCP authorization spec require it, so it is never implied.
    const redirectUri = q.redirect_uri;
    if (!redirectUri || !redirectMatches(client.redirectUris, redirectUri)) {
      return {
        kind: 'page_error',
        message:
          'The return address is missing or does not match one the application registered (exactly; a loopback address may differ only in its port).',
      };
    }
    if (q.state !== undefined && q.state.length > MAX_STATE_CHARS) {
      return { kind: 'page_error', message: `state is longer than ${MAX_STATE_CHARS} characters.` };
    }
    // Errors go back to the registered address by redirect when that address is a native app's
    // (loopback or private-use scheme, what MCP clients use) or an owner has approved the client.
    // Otherwise, since anyone may register any https address, an automatic redirect would make
    // Cairn an open redirector (RFC 9700 §4.11.2): the error is shown with a link back instead.
    const trusted =
      isNativeRedirect(redirectUri) || (await oauthRepo.clientHasGrant(this.database.db, client.id));
    const fail = (error: string, description: string): AuthorizeOutcome => ({
      kind: trusted ? 'redirect' : 'error_return',
      error,
      description,
      host: returnHost(redirectUri),
      location: withParams(redirectUri, {
        error,
        error_description: description,
        state: q.state,
        iss: this.baseUrl,
      }),
    });
    if (q.response_type !== 'code') return fail('unsupported_response_type', 'response_type must be code.');
    if (!q.code_challenge || !/^[A-Za-z0-9_-]{43}$/.test(q.code_challenge)) {
      return fail('invalid_request', 'PKCE is required: send code_challenge (S256, 43 characters).');
    }
    if (q.code_challenge_method !== 'S256') {
      return fail('invalid_request', 'code_challenge_method must be S256; plain is refused.');
    }
    const scopes = parseScopes(q.scope);
    if (!scopes) return fail('invalid_scope', UNKNOWN_SCOPE);
    if (q.resource !== undefined && q.resource !== this.resource) {
      return fail('invalid_target', `The only resource is ${this.resource}.`);
    }
    const now = this.clock.now();
    const requestId = newId('orq', now);
    const binding = newOpaqueId();
    await oauthRepo.insertRequest(this.database.db, {
      id: requestId,
      browserBindingHash: hashSecret(binding),
      clientId: client.id,
      redirectUri,
      state: q.state ?? null,
      codeChallenge: q.code_challenge,
      scope: scopeString(scopes),
      resource: this.resource,
      status: 'PENDING',
      createdAt: now,
      expiresAt: new Date(now.getTime() + REQUEST_MS),
    });
    return { kind: 'review', requestId, binding };
  }

  /** The client an authorization request names: registered, or read from its client_id URL. */
  private async clientOf(clientId: string | undefined): Promise<oauthRepo.ClientRow | null> {
    if (!clientId) return null;
    if (isClientIdUrl(clientId)) return this.documents.client(clientId);
    return oauthRepo.findClient(this.database.db, clientId);
  }

  /**
   * A consent request for a signed-in owner to review: a pending one in the browser that started
   * it (see mayDecide), a decided one only by the owner who decided it. NOT_FOUND otherwise.
   */
  async review(ownerId: string, requestId: string, binding: string | undefined): Promise<ConsentRequest> {
    const found = await oauthRepo.findRequest(this.database.db, requestId);
    if (!found || !mayDecide(found.request, ownerId, binding)) throw notInThisBrowser(requestId);
    const { request: r, client } = found;
    const now = this.clock.now();
    const expired = r.status === 'PENDING' && r.expiresAt <= now;
    const pending = r.status === 'PENDING' && !expired;
    return {
      request_id: r.id,
      status: expired ? 'EXPIRED' : r.status,
      client: {
        client_id: client.id,
        client_name: client.clientName,
        name_is_verified: false,
        metadata_document_host: isClientIdUrl(client.id) ? new URL(client.id).host : null,
      },
      warnings: consentWarnings(client),
      redirect_uri: r.redirectUri,
      return_host: returnHost(r.redirectUri),
      scope: r.scope,
      scopes: scopeLines(r.scope),
      extendable: pending ? await extendableIdentities(this.database.db, ownerId, client.id, now) : [],
      grants: [
        'A new agent identity of its own, owned by you, with anonymous public reading (mode READ) active; or, if you choose one below, these scopes for an identity this application already connected.',
        'Nothing else: campaigns, mail, payments and other access stay separate decisions of yours.',
        `The connection lasts up to ${IDENTITY_LIMITS.oauthConnectionDays} days from now; you can revoke it at any time.`,
      ],
      expires_at: r.expiresAt.toISOString(),
    };
  }

  /**
   * The owner's decision. Allow creates the identity (READ active), the connection and a
   * one-minute code; either way the browser goes back to the client with the answer.
   */
  async decide(
    ownerId: string,
    requestId: string,
    allow: boolean,
    binding: string | undefined,
    /** Give the scopes to this identity, already connected through the client (a step-up), instead of a new one. */
    extendAgentId?: string,
  ): Promise<{ redirect_to: string }> {
    return this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const found = await oauthRepo.findRequest(tx, requestId, true);
      if (!found || !mayDecide(found.request, ownerId, binding)) throw notInThisBrowser(requestId);
      const { request: r, client } = found;
      if (r.status !== 'PENDING') {
        throw new DomainError('CONFLICT', 'This authorization request was already decided.', {
          status: r.status,
        });
      }
      if (r.expiresAt <= now) {
        throw new DomainError(
          'NOT_FOUND',
          'This authorization request expired; start again from the application.',
        );
      }
      const back = (params: Record<string, string | undefined>) =>
        withParams(r.redirectUri, { ...params, state: r.state ?? undefined, iss: this.baseUrl });
      if (!allow) {
        await oauthRepo.decideRequest(tx, r.id, {
          status: 'DECLINED',
          ownerId,
          grantId: null,
          decidedAt: now,
        });
        await recordAudit(
          tx,
          { ownerId, action: 'oauth.decline', subjectId: r.id, details: { client_id: client.id } },
          now,
        );
        return { redirect_to: back({ error: 'access_denied', error_description: 'The owner declined.' }) };
      }
      const extended = extendAgentId
        ? await identityToExtend(tx, ownerId, client.id, extendAgentId, now)
        : null;
      const agentId = extended?.agent_id ?? newId('agt', now);
      if (!extended) {
        await agentRepo.insertAgent(tx, {
          id: agentId,
          ownerId,
          displayName: client.clientName.slice(0, IDENTITY_LIMITS.displayName.maxChars),
          runtime: `oauth:${client.clientName}`.slice(0, 120),
          kind: 'RUNTIME_BOUND',
          createdAt: now,
        });
        await changeMode(tx, agentId, 'READ', now);
      }
      const grantId = newId('grt', now);
      await oauthRepo.insertGrant(tx, {
        id: grantId,
        clientId: client.id,
        ownerId,
        agentId,
        scope: r.scope,
        resource: r.resource,
        approvedAt: now,
        expiresAt: new Date(now.getTime() + CONNECTION_MS),
      });
      const code = newOpaqueId();
      await oauthRepo.insertCode(tx, {
        codeHash: hashSecret(code),
        grantId,
        clientId: client.id,
        redirectUri: r.redirectUri,
        codeChallenge: r.codeChallenge,
        resource: r.resource,
        expiresAt: new Date(now.getTime() + CODE_MS),
      });
      await oauthRepo.decideRequest(tx, r.id, { status: 'APPROVED', ownerId, grantId, decidedAt: now });
      await recordAudit(
        tx,
        {
          ownerId,
          action: 'oauth.allow',
          subjectId: agentId,
          details: {
            client_id: client.id,
            grant_id: grantId,
            scope: r.scope,
            ...(extended ? { extended: true } : {}),
          },
        },
        now,
      );
      return { redirect_to: back({ code }) };
    });
  }

  /** An owner's connections (SPEC: client, identity, approved, expires, last used). */
  async connections(ownerId: string) {
    const now = this.clock.now();
    const rows = await oauthRepo.listGrants(this.database.db, ownerId);
    return rows.map(({ grant: g, clientName, agentName, agentLastSeenAt }) => ({
      grant_id: g.id,
      client: { client_id: g.clientId, client_name: clientName },
      agent_id: g.agentId,
      agent_name: agentName,
      scope: g.scope,
      approved_at: g.approvedAt.toISOString(),
      expires_at: g.expiresAt.toISOString(),
      last_used_at: (agentLastSeenAt ?? g.lastUsedAt)?.toISOString() ?? null,
      status: g.revokedAt ? 'REVOKED' : g.expiresAt <= now ? 'EXPIRED' : 'ACTIVE',
      revoked_at: g.revokedAt?.toISOString() ?? null,
    }));
  }

  /** Ends one of the owner's connections: its tokens and its identity. NOT_FOUND for anyone else's. */
  async revokeConnection(ownerId: string, grantId: string): Promise<{ grant_id: string; status: 'REVOKED' }> {
    await this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const grant = await oauthRepo.findGrant(tx, grantId);
      if (!grant || grant.ownerId !== ownerId) {
        throw new DomainError('NOT_FOUND', 'No such connection of yours.', { grant_id: grantId });
      }
      await oauthRepo.revokeGrant(tx, grant, now);
      await recordAudit(
        tx,
        { ownerId, action: 'oauth.revoke', subjectId: grant.agentId, details: { grant_id: grant.id } },
        now,
      );
    });
    return { grant_id: grantId, status: 'REVOKED' };
  }
}
