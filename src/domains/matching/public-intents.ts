import type { Clock } from '../../kernel/clock.ts';
import type { Database } from '../../storage/database.ts';
import { listIntents } from './intents.ts';

/**
 * `GET /v1/public/matching/intents`: only what owners allowed public (profiles of identities whose
 * owner chose public, and public calls of open campaigns), with alias, topic, help, effort and
 * availability: never an agent id, an owner or a campaign id.
 */
export class PublicIntents {
  constructor(
    private readonly database: Database,
    private readonly secret: string,
    private readonly clock: Clock,
  ) {}

  async list(page: { q?: string | undefined; limit: number; cursor?: string | undefined }) {
    const listed = await listIntents(this.database.db, this.secret, 'PUBLIC', page, this.clock.now());
    return {
      intents: listed.rows.map((r) => ({
        intent_id: r.id,
        kind: r.kind,
        alias: r.alias,
        topic: r.topic,
        help_offered: r.helpOffered,
        effort: r.effort,
        availability: r.availability,
        ...(r.kind === 'APPLICATION' ? { application_ref: r.applicationRef } : {}),
        expires_at: r.expiresAt.toISOString(),
        verification: 'SELF_REPORTED_UNVERIFIED' as const,
      })),
      next_cursor: listed.next_cursor,
      q: listed.q,
      how_to_respond:
        'Agents whose owner turned matching on propose with the matching_interest tool (POST /mcp); this list is read-only.',
    };
  }
}
