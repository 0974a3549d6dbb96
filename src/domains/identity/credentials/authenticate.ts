import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { hashSecret } from '../../../kernel/ids.ts';
import type { Database } from '../../../storage/database.ts';
import * as agentRepo from '../agent-repo.ts';
import { touchSession } from '../session-repo.ts';
import type { Caller } from '../types.ts';
import { OWNER_TOKEN_PREFIX } from './owner-tokens.ts';
import * as tokenRepo from './token-repo.ts';

/**
 * Bearer authentication: a project key or access token resolved to its caller (and whether the
 * MCP session it names is open), every failure told alike except a revoked identity's, and the
 * last-used stamps written only when stale so the hot path stays read-only.
 */

/** How stale last_used_at may get before a request writes it again: keeps auth read-only on the hot path. */
const TOUCH_INTERVAL_MS = 60_000;

/** What authenticateBearer needs of the identity service: its prepared lookups and this server's resource. */
export interface BearerDeps {
  database: Database;
  clock: Clock;
  /** This server's protected resource: an access token issued for another is refused (RFC 8707). */
  audience: string;
  credentialLookup: agentRepo.CredentialLookup;
  accessLookup: tokenRepo.AccessLookup;
}

export interface Authenticated {
  caller: Caller;
  /** Whether the session id given to authenticate() is an open session of this caller. */
  sessionOpen: boolean;
  /** Whether that session has notifications queued for it. */
  notificationsWaiting: boolean;
  /** Whether owner messages wait in the agent's inbox (checked in the same query, so free). */
  ownerMessagesWaiting: boolean;
}

/**
 * Resolves a bearer credential to its caller and says whether `sessionId` (when given) is an
 * open MCP session of that caller. Any credential failure (unknown, expired, revoked key) is
 * the same UNAUTHENTICATED, so a probe learns nothing about which; only a live credential of a
 * revoked identity is told so, not to retry.
 */
export async function authenticateBearer(
  deps: BearerDeps,
  bearer: string,
  sessionId: string | null,
): Promise<Authenticated> {
  const kind = bearer.startsWith('cd_prj_')
    ? 'project_key'
    : bearer.startsWith('cd_acc_')
      ? 'access_token'
      : null;
  if (!kind) {
    // A bootstrap token is a client secret: sending it again here can never work.
    if (bearer.startsWith('cd_boot_')) {
      throw new DomainError(
        'UNAUTHENTICATED',
        'A bootstrap token cannot be used on /mcp; exchange it at /oauth/token for an access token first.',
        {},
        {
          retryable: false,
          next: 'POST /oauth/token with grant_type=client_credentials and the bootstrap token as client_secret, then use the access token it returns.',
        },
      );
    }
    // An owner token is a person's credential for the /v1 console operations, not an agent's.
    if (bearer.startsWith(OWNER_TOKEN_PREFIX)) {
      throw new DomainError(
        'UNAUTHENTICATED',
        "This is an owner API token (cd_own_): it acts as a person on the console's /v1/… operations and is never accepted on /mcp. An agent connects with its own credential.",
        {},
        {
          retryable: false,
          next: 'Use a project key (cd_prj_) or an access token (cd_acc_) of an agent identity here; send the owner token only to /v1/… owner operations.',
        },
      );
    }
    throw new DomainError('UNAUTHENTICATED', 'The credential is invalid, expired or revoked.');
  }
  const hashed = hashSecret(bearer);
  const found =
    kind === 'project_key'
      ? await agentRepo.lookupCredential(deps.credentialLookup, hashed, sessionId)
      : await tokenRepo.lookupAccess(deps.accessLookup, hashed, sessionId);
  const now = deps.clock.now();
  if (!found || found.revokedAt || found.expiresAt <= now) {
    throw new DomainError('UNAUTHENTICATED', 'The credential is invalid, expired or revoked.');
  }
  // A live credential of a revoked identity: its holder proved it has the secret, so it may
  // learn why, and that retrying or refreshing cannot help (SPEC States: owner help needed).
  if (found.agent.status === 'REVOKED') {
    throw new DomainError(
      'UNAUTHENTICATED',
      'This identity was revoked by its owner: none of its credentials works any more, and no new one can be issued for it.',
      { inactive_reason: 'REVOKED' },
      {
        retryable: false,
        next: `Do not retry or refresh. Ask your owner (${found.agent.ownerEmail}) to pair a new identity for this runtime.`,
      },
    );
  }
  if ('audience' in found && found.audience !== null && found.audience !== deps.audience) {
    throw new DomainError(
      'UNAUTHENTICATED',
      `The token was issued for another resource, not ${deps.audience}; get one for this server.`,
    );
  }
  if (isStale(found.lastUsedAt, now)) {
    const touch = kind === 'project_key' ? agentRepo.touchProjectKey : tokenRepo.touchToken;
    await touch(deps.database.db, found.keyId, found.agent.id, now);
  }
  if (found.sessionId && isStale(found.sessionSeenAt, now)) {
    await touchSession(deps.database.db, found.sessionId, now);
  }
  // An OAuth connection's tokens carry the scopes the owner approved; other credentials, none.
  const scope = 'grantScope' in found && typeof found.grantScope === 'string' ? found.grantScope : null;
  return {
    caller: {
      agent: found.agent,
      credential: { kind, id: found.keyId },
      standing: found.standing,
      ...(scope ? { scopes: scope.split(' ') } : {}),
    },
    sessionOpen: found.sessionId !== null,
    notificationsWaiting: found.notificationsWaiting === true,
    ownerMessagesWaiting: found.ownerMessagesWaiting === true,
  };
}

/** Whether a last-used stamp is old enough to be written again. */
function isStale(stamp: Date | null, now: Date): boolean {
  return !stamp || now.getTime() - stamp.getTime() > TOUCH_INTERVAL_MS;
}
