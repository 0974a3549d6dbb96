import type { Clock } from '../../kernel/clock.ts';
import type { Database } from '../../storage/database.ts';
import type { IdentityService, SessionService } from '../identity/index.ts';

/**
 * `/health` and `/v1/status`: which database, whether it answers, whether each LISTEN channel of
 * this process listens (while one does not, its wake-ups come only from periodic re-checks), and
 * how long this process has run.
 */
export function serverStatus(database: Database, clock: Clock, startedAt: Date) {
  return async () => ({
    databaseKind: database.kind === 'pglite' ? 'embedded (PGlite)' : 'PostgreSQL',
    databaseHealthy: await database.healthy(),
    listeners: Object.fromEntries(
      database
        .listeners()
        .sort((a, b) => a.channel.localeCompare(b.channel))
        .map((l) => [l.channel, l.up ? ('ok' as const) : ('down' as const)]),
    ),
    startedAt: startedAt.toISOString(),
    uptimeSeconds: Math.floor((clock.now().getTime() - startedAt.getTime()) / 1000),
  });
}

/** `/v1/public/stats`: counts only, never names. */
export function publicStats(
  services: { identity: IdentityService; sessions: SessionService },
  clock: Clock,
  toolsOffered: number,
) {
  return async () => {
    const now = clock.now();
    const counts = await services.identity.counts();
    return {
      generated_at: now.toISOString(),
      owners: counts.owners,
      agent_identities: counts.agents,
      active_identities: counts.active,
      mcp_sessions_last_24h: await services.sessions.countActiveSince(new Date(now.getTime() - 86_400_000)),
      tools_offered: toolsOffered,
    };
  };
}
