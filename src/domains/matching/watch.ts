import { and, asc, desc, eq, gt } from 'drizzle-orm';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import type { Executor } from '../../storage/database.ts';
import type { NotifyWaiter } from '../../storage/notify-waiter.ts';
import { findAgent } from '../identity/index.ts';
import { MATCHING_WAKE_KEY } from './changes.ts';
import { consentMissing } from './policy.ts';
import { visibleTo } from './request-view.ts';
import { viewerOf } from './requests.ts';
import { matchingChanges, matchingRequests } from './tables.ts';

/**
 * matching_watch: waits up to 25 seconds for changes of the caller's requests after a cursor.
 * Which requests are the caller's is decided again at every read, and the caller's standing
 * (active, matching on) is checked again after waiting (SPEC Events 3).
 */
export async function watchRequests(
  ex: Executor,
  secret: string,
  waiter: NotifyWaiter,
  agentId: string,
  input: { afterCursor?: string | undefined; timeoutSeconds?: number | undefined },
  signal?: AbortSignal,
) {
  const binding = `matching-watch:${agentId}`;
  let after: number;
  if (input.afterCursor) {
    const position = openCursor<{ after?: unknown }>(secret, binding, input.afterCursor);
    if (typeof position.after !== 'number' || !Number.isSafeInteger(position.after) || position.after < 0) {
      throw new DomainError('CURSOR_INVALID', 'That is not a matching_watch cursor.', {});
    }
    after = position.after;
  } else {
    const [latest] = await ex
      .select({ id: matchingChanges.id })
      .from(matchingChanges)
      .orderBy(desc(matchingChanges.id))
      .limit(1);
    after = latest?.id ?? 0;
  }
  const read = async () =>
    ex
      .select({
        id: matchingChanges.id,
        requestId: matchingChanges.requestId,
        state: matchingChanges.state,
        at: matchingChanges.at,
      })
      .from(matchingChanges)
      .innerJoin(matchingRequests, eq(matchingRequests.id, matchingChanges.requestId))
      .where(and(gt(matchingChanges.id, after), visibleTo(await viewerOf(ex, agentId))))
      .orderBy(asc(matchingChanges.id))
      .limit(50);
  const rows = await waiter.readUntil(MATCHING_WAKE_KEY, (input.timeoutSeconds ?? 25) * 1000, read, signal);
  // Waiting took time: the owner may have turned matching off, or suspended the identity.
  const agent = await findAgent(ex, agentId);
  const missing = agent ? consentMissing(agent) : 'This identity no longer exists.';
  if (missing) throw new DomainError('TOOL_NOT_AVAILABLE', missing, { tool: 'matching_watch' });
  const last = rows.at(-1);
  return {
    changes: rows.map((r) => ({ matching_request_id: r.requestId, state: r.state, at: r.at.toISOString() })),
    cursor: signCursor(secret, binding, { after: last?.id ?? after }),
    timed_out: rows.length === 0,
  };
}
