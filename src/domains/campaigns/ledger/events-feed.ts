import type { Feed } from '../../../framework/index.ts';
import { feedUri } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { viewerOf } from '../audience.ts';
import { type Membership, requireMembership } from '../core/member.ts';
import { eventsAfter, openWatchCursor, presentEventFor, signWatchCursor } from './ledger-repo.ts';
import type { LedgerWaiter } from './ledger-waiter.ts';

/**
 * A campaign's ledger as a feed (framework/feed.ts): a member that follows
 * `cairn://campaigns/{campaign_id}/events` in a 2026-07-28 listen is told
 * (`notifications/resources/updated`) whenever an event it may see is added, the same
 * visibility as events_watch, from any replica (the ledger's NOTIFY). With `?cursor=` (an
 * events_watch cursor) it is told at once when events came after it, so a client that
 * reconnects misses nothing; without one it hears of what comes from now on. Reading the URI
 * gives what events_watch would give at once, without waiting: the events after the cursor (from
 * the start without one) and the cursor to pass next.
 */

const PREFIX = 'cairn://campaigns/';
/** How many events one read of the feed gives, as events_watch's default. */
const READ_LIMIT = 100;

/**
 * A campaign feed's URI, `cairn://campaigns/{campaign_id}/{kind}` with an optional `?cursor=`:
 * the campaign and the cursor, or null when it is anything else (another kind, other query keys,
 * a repeated cursor).
 */
export function campaignFeedTarget(
  uri: string,
  kind: string,
): { campaignId: string; cursor: string | null } | null {
  const parsed = feedUri(uri, PREFIX);
  if (!parsed) return null;
  const [campaignId, named, ...rest] = parsed.segments;
  if (!campaignId || !/^cmp_[0-9A-Za-z]{1,64}$/.test(campaignId) || named !== kind || rest.length > 0) {
    return null;
  }
  const keys = [...parsed.query.keys()];
  if (keys.some((k) => k !== 'cursor') || parsed.query.getAll('cursor').length > 1) return null;
  return { campaignId, cursor: parsed.query.get('cursor') };
}

/** Null for a refusal (a DomainError): a feed answers "not yours" alike for every reason. */
async function orNull<T>(work: () => T | Promise<T>): Promise<T | null> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof DomainError) return null;
    throw err;
  }
}

/**
 * What a campaign feed's URI names for this caller: the campaign, the caller's standing there as
 * `access` decides it, and where the URI's cursor stands (null without one); null when the URI is
 * not of this kind or not the caller's to read (no access, another caller's cursor).
 */
export async function resolveCampaignFeed(
  uri: string,
  kind: string,
  caller: Caller,
  access: (caller: Caller, campaignId: string) => Promise<Membership>,
  position: (m: Membership, cursor: string) => number,
) {
  const target = campaignFeedTarget(uri, kind);
  if (!target) return null;
  const m = await orNull(() => access(caller, target.campaignId));
  if (!m) return null;
  if (target.cursor === null) return { target, m, from: null };
  const cursor = target.cursor;
  const from = await orNull(() => position(m, cursor));
  return from === null ? null : { target, m, from };
}

export function eventsFeed(database: Database, secret: string, ledger: LedgerWaiter): Feed {
  /** The caller's membership; a non-member learns nothing, not even that the campaign exists. */
  const member = (caller: Caller, campaignId: string) => requireMembership(database.db, caller, campaignId);
  const resolve = (uri: string, caller: Caller) =>
    resolveCampaignFeed(uri, 'events', caller, member, (m, cursor) =>
      openWatchCursor(secret, m.agentId, m.campaign.id, cursor),
    );

  return {
    uriTemplate: `${PREFIX}{campaign_id}/events{?cursor}`,
    name: 'campaign-events',
    title: 'A campaign’s ledger events',
    description:
      'The events of a campaign you are a member of that you may see (as events_watch shows them). Follow it in subscriptions/listen (resourceSubscriptions) to be told of each new one; add ?cursor= (an events_watch cursor) to hear at once of what came after it. Reading it gives the events after the cursor and the next cursor.',
    mimeType: 'application/json',

    async follow(uri, caller) {
      const resolved = await resolve(uri, caller);
      if (!resolved) return null;
      const { target, m, from } = resolved;
      // From the cursor, or from what has committed so far (last_seq is read with the membership).
      let mark = from ?? m.campaign.lastSeq;
      return {
        arm: () => ledger.arm(target.campaignId),
        async news(now) {
          const current = await orNull(() => member(now, target.campaignId));
          if (!current) return false;
          const [next] = await eventsAfter(database.db, viewerOf(current), mark, 1);
          // Everything up to last_seq has committed and been considered: a visible event among
          // it is news; invisible ones are not looked at again.
          mark = Math.max(mark, current.campaign.lastSeq, next?.seq ?? 0);
          return next !== undefined;
        },
      };
    },

    async read(uri, caller) {
      const resolved = await resolve(uri, caller);
      if (!resolved) return null;
      const { m, from } = resolved;
      const afterSeq = from ?? 0;
      const viewer = viewerOf(m);
      const rows = await eventsAfter(database.db, viewer, afterSeq, READ_LIMIT);
      const last = rows.at(-1);
      // As events_watch: a page that is not full has seen everything up to last_seq.
      const seq = last
        ? rows.length < READ_LIMIT
          ? Math.max(last.seq, m.campaign.lastSeq)
          : last.seq
        : afterSeq;
      return JSON.stringify({
        campaign_id: m.campaign.id,
        events: rows.map((e) => presentEventFor(viewer, e)),
        cursor: signWatchCursor(secret, m.agentId, m.campaign.id, seq),
        more: rows.length === READ_LIMIT,
        next: 'Read this URI again with ?cursor=<cursor>, or call events_watch with the cursor to wait for more.',
      });
    },
  };
}
