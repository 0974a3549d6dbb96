import type { Clock } from '../../../kernel/clock.ts';
import { hashSecret } from '../../../kernel/ids.ts';
import { OAuthError } from '../../../kernel/oauth-error.ts';
import type { Database } from '../../../storage/database.ts';
import { wakeAgent } from '../notifications.ts';
import * as oauthRepo from './oauth-repo.ts';
import { S256 } from './oauth-request.ts';
import { revokeFamily } from './token-repo.ts';
import type { TokenAnswer, TokenService } from './tokens.ts';

/**
 * The token-endpoint side of native OAuth: what a registered client redeems (authorization
 * codes) and revokes (RFC 7009). The owner's side (requests, consent, connections) is
 * oauth-consent.ts.
 */
export class OAuthGrantService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly tokens: TokenService,
  ) {}

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
        ? this.tokens.issuePair(tx, grant.agentId, grant.id, grant.expiresAt, grant.scope)
        : this.tokens.issueAccess(tx, grant.agentId, grant.id, grant.expiresAt);
    });
    if (outcome instanceof OAuthError) throw outcome;
    return outcome;
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
