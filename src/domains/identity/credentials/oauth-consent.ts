import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret, newId, newOpaqueId } from '../../../kernel/ids.ts';
import { LIMITS } from '../../../kernel/limits.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import type { Database } from '../../../storage/database.ts';
import * as agentRepo from '../agent-repo.ts';
import { recordAudit } from '../audit.ts';
import { changeMode } from '../management.ts';
import { wakeAgent } from '../notifications.ts';
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
  S256,
  scopeAllowed,
  withParams,
} from './oauth-request.ts';
import { revokeFamily } from './token-repo.ts';
import type { TokenAnswer, TokenService } from './tokens.ts';

const REQUEST_MS = 10 * 60_000;
const CODE_MS = 60_000;
const CONNECTION_MS = LIMITS.oauthConnectionDays * 86_400_000;
const MAX_STATE_CHARS = 1_000;

/**
 * Native OAuth for MCP clients (SPEC Authentication 7): authorization requests, the owner's
 * consent, authorization codes with S256 PKCE, and connections. Each approval creates an identity
 * of its own with public reading (READ) active, and nothing else.
 */
export class OAuthConsentService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tokens: TokenService,
    private readonly baseUrl: string,
  ) {}

  /** The protected resource every token is bound to. */
  get resource(): string {
    return mcpResource(this.baseUrl);
  }

  /** Checks an authorization request (RFC 6749 §4.1.1, RFC 7636, RFC 8707) and files it for review. */
  async startAuthorization(q: AuthorizeQuery): Promise<AuthorizeOutcome> {
    const client = q.client_id
      ? await oauthRepo.findClient(this.database.db, q.client_id.slice(0, 100))
      : null;
    if (!client) {
      return { kind: 'page_error', message: 'This application is not registered here (unknown client_id).' };
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
    if (!scopeAllowed(q.scope)) return fail('invalid_scope', 'The only scope is mcp.');
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
      scope: 'mcp',
      resource: this.resource,
      status: 'PENDING',
      createdAt: now,
      expiresAt: new Date(now.getTime() + REQUEST_MS),
    });
    return { kind: 'review', requestId, binding };
  }

  /**
   * A consent request for a signed-in owner to review: a pending one in the browser that started
   * it (see mayDecide), a decided one only by the owner who decided it. NOT_FOUND otherwise.
   */
  async review(ownerId: string, requestId: string, binding: string | undefined): Promise<ConsentRequest> {
    const found = await oauthRepo.findRequest(this.database.db, requestId);
    if (!found || !mayDecide(found.request, ownerId, binding)) throw notInThisBrowser(requestId);
    const { request: r, client } = found;
    const expired = r.status === 'PENDING' && r.expiresAt <= this.clock.now();
    return {
      request_id: r.id,
      status: expired ? 'EXPIRED' : r.status,
      client: { client_id: client.id, client_name: client.clientName, name_is_verified: false },
      redirect_uri: r.redirectUri,
      return_host: returnHost(r.redirectUri),
      scope: r.scope,
      grants: [
        'A new agent identity of its own, owned by you, with anonymous public reading (mode READ) active.',
        'Nothing else: campaigns, mail, payments and other access stay separate decisions of yours.',
        `The connection lasts up to ${LIMITS.oauthConnectionDays} days from now; you can revoke it at any time.`,
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
      const agentId = newId('agt', now);
      await agentRepo.insertAgent(tx, {
        id: agentId,
        ownerId,
        displayName: client.clientName.slice(0, LIMITS.displayName.maxChars),
        runtime: `oauth:${client.clientName}`.slice(0, 120),
        kind: 'RUNTIME_BOUND',
        createdAt: now,
      });
      await changeMode(tx, agentId, 'READ', now);
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
          details: { client_id: client.id, grant_id: grantId },
        },
        now,
      );
      return { redirect_to: back({ code }) };
    });
  }

  /**
   * authorization_code at the token endpoint. A code dies at its first redemption attempt,
   * whatever the outcome (RFC 6749 §4.1.2, RFC 9700 §4.2.4): it is spent before anything is
   * checked, so a wrong verifier or another client's attempt leaves nothing to try again. A
   * later use of a code that did issue tokens means it leaked: the connection is revoked, but
   * only when the request proves possession with the right PKCE verifier, so that anyone
   * holding a used code and a public client id cannot cut the connection off.
   */
  async exchangeCode(
    client: oauthRepo.ClientRow,
    input: {
      code: string;
      redirect_uri?: string | undefined;
      code_verifier?: string | undefined;
      resource?: string | undefined;
    },
  ): Promise<TokenAnswer> {
    // Refusals are returned, not thrown, so that the spent code commits with them.
    const outcome = await this.database.transaction(async (tx): Promise<TokenAnswer | OAuthError> => {
      const now = this.clock.now();
      const row = await oauthRepo.lockCode(tx, hashSecret(input.code));
      if (!row) return new OAuthError('invalid_grant', 'Unknown authorization code.');
      const firstAttempt = row.usedAt === null;
      if (firstAttempt) await oauthRepo.spendCode(tx, row.codeHash, now);
      const grant = row.clientId === client.id ? await oauthRepo.findGrant(tx, row.grantId) : null;
      if (!grant) return new OAuthError('invalid_grant', 'Unknown authorization code.');
      const verifierMatches =
        input.code_verifier !== undefined && S256(input.code_verifier) === row.codeChallenge;
      if (!firstAttempt) {
        // lastUsedAt is set only when this grant's one code issued tokens.
        if (!verifierMatches || !grant.lastUsedAt || grant.revokedAt) {
          return new OAuthError('invalid_grant', 'This code was already used; start a new authorization.');
        }
        await oauthRepo.revokeGrant(tx, grant, now);
        await wakeAgent(tx, grant.agentId);
        return new OAuthError(
          'invalid_grant',
          'This code was already used; the connection it made is now revoked.',
        );
      }
      if (row.expiresAt <= now)
        return new OAuthError('invalid_grant', 'The authorization code expired; start again.');
      // Cairn's authorization requests always carry redirect_uri, so the token request must too.
      if (input.redirect_uri === undefined) {
        return new OAuthError(
          'invalid_request',
          'redirect_uri is required: send the one the authorization used.',
        );
      }
      if (input.redirect_uri !== row.redirectUri) {
        return new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request.');
      }
      if (!input.code_verifier || !/^[A-Za-z0-9._~-]{43,128}$/.test(input.code_verifier)) {
        return new OAuthError('invalid_request', 'code_verifier (43-128 characters) is required.');
      }
      if (!verifierMatches) {
        return new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
      }
      if (input.resource !== undefined && input.resource !== row.resource) {
        return new OAuthError('invalid_target', `The only resource is ${row.resource}.`);
      }
      if (grant.revokedAt) return new OAuthError('invalid_grant', 'The connection was revoked.');
      await oauthRepo.touchClient(tx, client.id, now);
      await oauthRepo.touchGrant(tx, grant.id, now);
      // A client that did not register refresh_token gets no refresh token (RFC 7591 §2).
      return client.grantTypes.includes('refresh_token')
        ? this.tokens.issuePair(tx, grant.agentId, grant.id, grant.expiresAt)
        : this.tokens.issueAccess(tx, grant.agentId, grant.id, grant.expiresAt);
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
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

  /**
   * RFC 7009 revocation: a refresh token ends its whole connection (or pairing); an access
   * token ends itself. Unknown tokens change nothing. A registered client may revoke only its
   * own connection's tokens, and a confidential client's tokens need that client authenticated.
   */
  async revokeToken(token: string, client: oauthRepo.ClientRow | null): Promise<void> {
    await this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const row = await oauthRepo.findTokenByHash(tx, hashSecret(token));
      if (!row) return;
      const grant = await oauthRepo.findGrant(tx, row.family);
      if (client && grant?.clientId !== client.id) return;
      // RFC 7009 §2.1: a confidential client's token is revoked only by that client, authenticated.
      if (grant && !client) {
        const owner = await oauthRepo.findClient(tx, grant.clientId);
        if (owner?.secretHash) {
          throw new OAuthError(
            'invalid_client',
            'This token belongs to a confidential client: authenticate as it.',
          );
        }
      }
      if (row.kind === 'ACCESS') {
        await oauthRepo.revokeToken(tx, row.id, now);
        await wakeAgent(tx, row.agentId);
      } else if (grant) await oauthRepo.revokeGrant(tx, grant, now);
      else await revokeFamily(tx, row.family, now);
    });
  }
}
