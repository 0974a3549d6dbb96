import { DEFAULT_SCOPE, parseScopes } from '../../../framework/index.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { hashSecret, newId, newToken } from '../../../kernel/ids.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import { sealJson, unsealJson } from '../../../kernel/seal.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import * as agentRepo from '../agent-repo.ts';
import * as mrepo from '../management-repo.ts';
import { wakeAgent } from '../notifications.ts';
import { IDENTITY_LIMITS } from './limits.ts';
import * as oauthRepo from './oauth-repo.ts';
import * as tokenRepo from './token-repo.ts';

/** The token endpoint's success answer (RFC 6749 §5.1) plus Cairn's agent_id. */
export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  agent_id: string;
  /** The scopes the tokens carry (RFC 6749 §5.1), for an OAuth connection's; pairings carry none. */
  scope?: string;
}

const ACCESS_MS = IDENTITY_LIMITS.accessTokenMinutes * 60_000;
const REFRESH_MS = IDENTITY_LIMITS.refreshTokenDays * 86_400_000;
const RETRY_MS = IDENTITY_LIMITS.refreshDuplicateWindowSeconds * 1000;

/**
 * Access and refresh tokens of agent identities: issued at pairing, rotated on refresh (with a
 * short duplicate-retry window), exchanged from bootstrap tokens. Only hashes are stored.
 */
export class TokenService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    /** The resource every token is issued for: this server's `/mcp` (RFC 8707). */
    private readonly audience: string,
  ) {}

  /**
   * A new access + refresh pair in the given family (one family per pairing or OAuth
   * connection). `endsAt` caps both lifetimes: an OAuth connection never outlives its 7 days.
   */
  async issuePair(
    ex: Executor,
    agentId: string,
    family: string,
    endsAt?: Date,
    scope?: string,
  ): Promise<TokenAnswer> {
    const access = await this.issue(ex, 'ACCESS', agentId, family, endsAt);
    const refresh = await this.issue(ex, 'REFRESH', agentId, family, endsAt);
    return {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.floor((access.expiresAt.getTime() - this.clock.now().getTime()) / 1000)),
      refresh_token: refresh.token,
      agent_id: agentId,
      ...(scope ? { scope } : {}),
    };
  }

  /** An access token alone (no refresh), capped like issuePair. */
  async issueAccess(ex: Executor, agentId: string, family: string, endsAt?: Date): Promise<TokenAnswer> {
    const access = await this.issue(ex, 'ACCESS', agentId, family, endsAt);
    return {
      access_token: access.token,
      token_type: 'Bearer',
      expires_in: Math.max(1, Math.floor((access.expiresAt.getTime() - this.clock.now().getTime()) / 1000)),
      agent_id: agentId,
    };
  }

  /** client_credentials with a bootstrap token: an access token only; invalid_client when it is dead. */
  async exchangeBootstrap(bootstrapToken: string): Promise<TokenAnswer> {
    return this.database.transaction(async (tx) => {
      const now = this.clock.now();
      const found = await mrepo.findLiveBootstrap(tx, hashSecret(bootstrapToken), now);
      const agent = found ? await agentRepo.findAgent(tx, found.agentId) : null;
      if (!found || !agent || agent.status === 'REVOKED') {
        throw new OAuthError(
          'invalid_client',
          'The bootstrap token is expired or unknown, or its identity was revoked. Stop and ask your owner for a new one.',
        );
      }
      await mrepo.touchBootstrap(tx, found.id, now);
      const access = await this.issue(tx, 'ACCESS', found.agentId, found.id);
      return {
        access_token: access.token,
        token_type: 'Bearer',
        expires_in: ACCESS_MS / 1000,
        agent_id: found.agentId,
      };
    });
  }

  /**
   * Rotates a refresh token: it is spent and a new pair comes back. The same spent token within
   * two seconds gets that same pair again (a client retrying a lost answer); later it is a
   * replay, and every token of the pairing is revoked.
   */
  async refresh(
    refreshToken: string,
    client: { id: string; grantTypes: string[] } | null = null,
    /** The scope the request names (RFC 6749 §6): none beyond what was approved. */
    requestedScope?: string,
  ): Promise<TokenAnswer> {
    const outcome = await this.database.transaction(async (tx): Promise<TokenAnswer | OAuthError> => {
      const now = this.clock.now();
      // Sealed answers are kept for the duplicate window only; every refresh sweeps the stale ones.
      await tokenRepo.clearOldRetries(tx, new Date(now.getTime() - RETRY_MS));
      const row = await tokenRepo.lockRefreshToken(tx, hashSecret(refreshToken));
      if (row?.kind !== 'REFRESH' || row.revokedAt || row.agentStatus === 'REVOKED') {
        return new OAuthError('invalid_grant', 'The refresh token is unknown or revoked; pair again.');
      }
      // Tokens of an OAuth connection are bound to its client and end with it.
      const grant = await oauthRepo.findGrant(tx, row.family);
      if (grant && grant.clientId !== client?.id) {
        return new OAuthError('invalid_grant', 'This refresh token was issued to another client.');
      }
      if (client && !client.grantTypes.includes('refresh_token')) {
        return new OAuthError('unauthorized_client', 'This client did not register the refresh_token grant.');
      }
      if (!grant && client) {
        return new OAuthError('invalid_grant', 'This refresh token was not issued to an OAuth client.');
      }
      if (grant?.revokedAt)
        return new OAuthError('invalid_grant', 'The connection was revoked; sign in again.');
      // Before the token is spent: a refused scope costs the client nothing (§6). The tokens keep
      // the approved scopes; asking for fewer is allowed, and the answer's scope says what they carry.
      const held = grant ? grant.scope.split(' ') : [DEFAULT_SCOPE];
      const asked = parseScopes(requestedScope);
      if (
        requestedScope !== undefined &&
        !asked?.every((s) => held.includes(s) || held.includes(DEFAULT_SCOPE))
      ) {
        return new OAuthError(
          'invalid_scope',
          `This connection was approved for ${held.join(' ')}; a refresh asks for no more. Authorize again for more.`,
        );
      }
      if (row.spentAt) {
        if (now.getTime() - row.spentAt.getTime() <= RETRY_MS && row.retrySealed) {
          return unsealJson<TokenAnswer>(this.secret, row.retrySealed);
        }
        // The revocation must commit, so it is returned, not thrown (a throw would roll it back).
        if (grant) await oauthRepo.revokeGrant(tx, grant, now);
        else await tokenRepo.revokeFamily(tx, row.family, now);
        await wakeAgent(tx, row.agentId);
        return new OAuthError(
          'invalid_grant',
          grant
            ? 'This refresh token was already used: the connection is now revoked. Sign in again.'
            : 'This refresh token was already used: every token of this pairing is now revoked. Pair again.',
        );
      }
      if (grant && grant.expiresAt <= now) {
        return new OAuthError(
          'invalid_grant',
          'The connection has ended (connections last 7 days from approval); sign in again.',
        );
      }
      if (row.expiresAt <= now)
        return new OAuthError('invalid_grant', 'The refresh token has expired; pair again.');
      if (grant) await oauthRepo.touchGrant(tx, grant.id, now);
      const pair = await this.issuePair(tx, row.agentId, row.family, grant?.expiresAt, grant?.scope);
      await tokenRepo.spendRefreshToken(tx, row.id, sealJson(this.secret, pair), now);
      return pair;
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
  }

  private async issue(
    ex: Executor,
    kind: 'ACCESS' | 'REFRESH',
    agentId: string,
    family: string,
    endsAt?: Date,
  ): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock.now();
    const token = newToken(kind === 'ACCESS' ? 'acc' : 'ref');
    const natural = now.getTime() + (kind === 'ACCESS' ? ACCESS_MS : REFRESH_MS);
    const expiresAt = new Date(Math.min(natural, endsAt?.getTime() ?? natural));
    await tokenRepo.insertToken(ex, {
      id: newId('tok', now),
      kind,
      agentId,
      family,
      tokenHash: hashSecret(token),
      createdAt: now,
      expiresAt,
      audience: this.audience,
    });
    return { token, expiresAt };
  }
}
