import { and, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import {
  deviceAuthorizations,
  oauthClients,
  oauthCodes,
  oauthGrants,
  oauthRequests,
  ownerTokens,
} from './credentials/tables.ts';
import { mcpNotifications, mcpSessions, ownerSessions, signinThrottle } from './tables.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** How long what is over is kept before it is deleted. */
export const RETENTION = {
  /** An MCP session nobody used for this long is ended (its client re-initializes). */
  idleSessionMs: DAY,
  deliveredNotificationMs: DAY,
  finishedDeviceAuthorizationMs: 7 * DAY,
  endedOwnerSessionMs: 7 * DAY,
  /** Consent requests and codes are useless once expired; kept a day for troubleshooting. */
  oauthRequestMs: DAY,
  /** A registered client that never got a connection and was not used for this long is forgotten. */
  unusedOAuthClientMs: 30 * DAY,
  /** A revoked or expired owner API token stays listed this long (the owner sees what ended), then goes. */
  endedOwnerTokenMs: 30 * DAY,
} as const;

/**
 * Ends idle MCP sessions and deletes what no request can reach any more: delivered
 * notifications, notifications of ended sessions, long-expired pairing requests, ended console
 * sessions and spent sign-in throttles. Safe to run on every replica at once: each statement is
 * a plain conditional update or delete. Returns how many rows each step touched.
 */
export async function sweepIdentity(ex: Executor, now: Date): Promise<Record<string, number>> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const count = (rows: unknown[]) => rows.length;
  const endedSessions = await ex
    .update(mcpSessions)
    .set({ endedAt: now })
    .where(and(isNull(mcpSessions.endedAt), lt(mcpSessions.lastSeenAt, before(RETENTION.idleSessionMs))))
    .returning({ id: mcpSessions.id });
  const notifications = await ex
    .delete(mcpNotifications)
    .where(
      or(
        and(
          isNotNull(mcpNotifications.deliveredAt),
          lt(mcpNotifications.deliveredAt, before(RETENTION.deliveredNotificationMs)),
        ),
        sql`${mcpNotifications.sessionId} in (select ${mcpSessions.id} from ${mcpSessions} where ${mcpSessions.endedAt} is not null)`,
      ),
    )
    .returning({ id: mcpNotifications.id });
  const devices = await ex
    .delete(deviceAuthorizations)
    .where(lt(deviceAuthorizations.expiresAt, before(RETENTION.finishedDeviceAuthorizationMs)))
    .returning({ id: deviceAuthorizations.id });
  const consoleSessions = await ex
    .delete(ownerSessions)
    .where(
      or(
        lt(ownerSessions.endedAt, before(RETENTION.endedOwnerSessionMs)),
        lt(ownerSessions.expiresAt, before(RETENTION.endedOwnerSessionMs)),
      ),
    )
    .returning({ id: ownerSessions.id });
  // A throttle whose lock is over and whose window started a day ago counts nothing any more.
  const throttles = await ex
    .delete(signinThrottle)
    .where(
      and(
        lt(signinThrottle.windowStartedAt, before(DAY)),
        or(isNull(signinThrottle.lockedUntil), lt(signinThrottle.lockedUntil, now)),
      ),
    )
    .returning({ key: signinThrottle.key });
  // Anyone may register clients and start authorizations: what never led anywhere is deleted.
  const codes = await ex
    .delete(oauthCodes)
    .where(lt(oauthCodes.expiresAt, before(RETENTION.oauthRequestMs)))
    .returning({ id: oauthCodes.codeHash });
  const requests = await ex
    .delete(oauthRequests)
    .where(lt(oauthRequests.expiresAt, before(RETENTION.oauthRequestMs)))
    .returning({ id: oauthRequests.id });
  const clients = await ex
    .delete(oauthClients)
    .where(
      and(
        lt(
          sql`coalesce(${oauthClients.lastUsedAt}, ${oauthClients.createdAt})`,
          before(RETENTION.unusedOAuthClientMs),
        ),
        sql`not exists (select 1 from ${oauthGrants} where ${oauthGrants.clientId} = ${oauthClients.id})`,
        sql`not exists (select 1 from ${oauthRequests} where ${oauthRequests.clientId} = ${oauthClients.id})`,
      ),
    )
    .returning({ id: oauthClients.id });
  const tokens = await ex
    .delete(ownerTokens)
    .where(
      or(
        lt(ownerTokens.revokedAt, before(RETENTION.endedOwnerTokenMs)),
        lt(ownerTokens.expiresAt, before(RETENTION.endedOwnerTokenMs)),
      ),
    )
    .returning({ id: ownerTokens.id });
  return {
    deleted_owner_tokens: count(tokens),
    deleted_oauth_codes: count(codes),
    deleted_oauth_requests: count(requests),
    deleted_oauth_clients: count(clients),
    ended_mcp_sessions: count(endedSessions),
    deleted_notifications: count(notifications),
    deleted_device_authorizations: count(devices),
    deleted_console_sessions: count(consoleSessions),
    deleted_throttles: count(throttles),
  };
}

const SWEEP_EVERY_MS = 10 * 60_000;

/** Runs the sweep every ten minutes in this process until stopped. */
export class Housekeeper {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly run: () => Promise<Record<string, number>>,
    private readonly onResult: (result: Record<string, number> | Error) => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      this.run().then(this.onResult, (err: Error) => this.onResult(err));
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
