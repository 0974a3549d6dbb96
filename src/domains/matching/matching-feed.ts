import { and, desc, eq, gt, lte } from 'drizzle-orm';
import type { Feed } from '../../framework/index.ts';
import { feedUri } from '../../framework/index.ts';
import { openCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import type { Database } from '../../storage/database.ts';
import type { NotifyWaiter } from '../../storage/notify-waiter.ts';
import { findAgent } from '../identity/index.ts';
import { MATCHING_WAKE_KEY } from './changes.ts';
import { consentMissing } from './policy.ts';
import { visibleTo } from './request-view.ts';
import { viewerOf } from './requests.ts';
import { matchingChanges, matchingRequests } from './tables.ts';
import { watchRequests } from './watch.ts';

/**
 * The caller's matching requests as a feed (framework/feed.ts): an identity with matching on
 * that follows `cairn://matching/requests` in a 2026-07-28 listen (or a 2025 session's
 * resources/subscribe) is told when one of its requests changes (made, answered, decided,
 * stopped), the same requests matching_watch shows it, from any replica. The owner's consent
 * is checked again at every wake. With `?cursor=` (a matching_watch cursor) it is told at once
 * of changes after it. Reading the URI gives matching_watch's answer without waiting.
 */

const URI = 'cairn://matching/requests';

function parse(uri: string): { cursor: string | null } | null {
  const parsed = feedUri(uri, URI);
  // Nothing after the URI but its query.
  const rest = parsed?.segments.join('/');
  if (!parsed || rest !== '') return null;
  const keys = [...parsed.query.keys()];
  if (keys.some((k) => k !== 'cursor') || parsed.query.getAll('cursor').length > 1) return null;
  return { cursor: parsed.query.get('cursor') };
}

export function matchingFeed(database: Database, secret: string, waiter: NotifyWaiter): Feed {
  const db = database.db;
  /** Whether matching is on for the agent now (its owner's consent, the identity active). */
  const allowed = async (agentId: string) => {
    const agent = await findAgent(db, agentId);
    return agent !== null && consentMissing(agent) === null;
  };
  /** A matching_watch cursor's position for this agent; null when it is not theirs. */
  const position = (agentId: string, cursor: string): number | null => {
    try {
      const { after } = openCursor<{ after?: unknown }>(secret, `matching-watch:${agentId}`, cursor);
      return typeof after === 'number' && Number.isSafeInteger(after) && after >= 0 ? after : null;
    } catch (err) {
      if (err instanceof DomainError) return null;
      throw err;
    }
  };
  const latest = async () => {
    const [row] = await db
      .select({ id: matchingChanges.id })
      .from(matchingChanges)
      .orderBy(desc(matchingChanges.id))
      .limit(1);
    return row?.id ?? 0;
  };

  return {
    uriTemplate: `${URI}{?cursor}`,
    name: 'matching-requests',
    title: 'Your matching requests',
    description:
      'Changes of your matching requests (as matching_watch shows them), while your owner has matching on for you. Follow it in subscriptions/listen (resourceSubscriptions) to be told of each; add ?cursor= (a matching_watch cursor) to hear at once of changes after it. Reading it gives the changes after the cursor and the next cursor.',
    mimeType: 'application/json',

    async follow(uri, caller) {
      const target = parse(uri);
      const agentId = caller.agent.id;
      if (!target || !(await allowed(agentId))) return null;
      const from = target.cursor === null ? await latest() : position(agentId, target.cursor);
      if (from === null) return null;
      let mark = from;
      return {
        arm: () => waiter.arm(MATCHING_WAKE_KEY),
        async news(now) {
          if (!(await allowed(now.agent.id))) return false;
          // Change ids are handed out in commit order (changes.ts): everything up to `upTo` has
          // committed, so it is considered once and never scanned again.
          const upTo = await latest();
          const [changed] = await db
            .select({ id: matchingChanges.id })
            .from(matchingChanges)
            .innerJoin(matchingRequests, eq(matchingRequests.id, matchingChanges.requestId))
            .where(
              and(
                gt(matchingChanges.id, mark),
                lte(matchingChanges.id, upTo),
                visibleTo(await viewerOf(db, now.agent.id)),
              ),
            )
            .limit(1);
          mark = Math.max(mark, upTo);
          return changed !== undefined;
        },
      };
    },

    async read(uri, caller) {
      const target = parse(uri);
      const agentId = caller.agent.id;
      if (!target || !(await allowed(agentId))) return null;
      if (target.cursor !== null && position(agentId, target.cursor) === null) return null;
      const answer = await watchRequests(db, secret, waiter, agentId, {
        ...(target.cursor ? { afterCursor: target.cursor } : {}),
        timeoutSeconds: 0,
      });
      return JSON.stringify(answer);
    },
  };
}
