import type { WaitTicket } from '../storage/notify-waiter.ts';
import type { Caller } from './caller.ts';

/**
 * A feed: something an idle agent can be woken for without polling (issue 42 item 2). An area
 * offers it as an MCP resource template; a 2026-07-28 client names one of its URIs in
 * `subscriptions/listen` (`resourceSubscriptions`) and is sent
 * `notifications/resources/updated` for that URI whenever there is something new there that
 * it may see. The transport knows no feed's meaning: it follows the URI, arms before each
 * check (so no change falls between a check and the wait), and asks whether there is news.
 */
/**
 * How much following one caller may hold open: URIs per 2026-07-28 listen, listens per identity
 * (the oldest is ended to make room), and URIs per 2025-era session (resources/subscribe).
 */
export const FEED_LIMITS = {
  urisPerListen: 20,
  listensPerIdentity: 10,
  subscriptionsPerSession: 20,
} as const;

export interface Feed {
  /** The URI template (RFC 6570), as resources/templates/list shows it. */
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  /**
   * Follows one URI for this caller, from the URI's cursor when it carries one (so a reconnect
   * resumes where the client had read up to), else from now. Null when the URI is not this
   * feed's, is malformed, names something the caller may not see, or carries a cursor that is
   * not the caller's: the listen's acknowledgement then leaves the URI out, the same for all of
   * these, so nothing is learned of what the caller may not see.
   */
  follow(uri: string, caller: Caller): Promise<FeedFollow | null>;
  /** The URI's content now, as resources/read answers it; null when `follow` would be. */
  read(uri: string, caller: Caller): Promise<string | null>;
}

export interface FeedFollow {
  /** Registers for the next wake-up of what this URI follows; arm before `news`. */
  arm(): Promise<WaitTicket>;
  /**
   * Whether the caller has something new here since the last call (the first call: since the
   * URI's cursor), seen as the caller may see it now; false once it may no longer see it.
   */
  news(caller: Caller): Promise<boolean>;
}

/** A feed's URI split into its path segments and query, or null when it is not under `prefix`. */
export function feedUri(uri: string, prefix: string): { segments: string[]; query: URLSearchParams } | null {
  if (!uri.startsWith(prefix) || uri.length > 2_000) return null;
  const [path = '', query = ''] = uri.slice(prefix.length).split('?', 2);
  return { segments: path.split('/'), query: new URLSearchParams(query) };
}
