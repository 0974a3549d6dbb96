import type { Alternative, ErrorCode } from '../../kernel/errors.ts';
import { NetRefusal, type NetRefusalReason } from '../../net/refusal.ts';
import { urlCarriesCredential } from '../../net/url-policy.ts';
import { IMPORT_LIMITS } from '../../parsing/index.ts';
import { ParseRefusal, type ParseRefusalReason, ParserBusy } from '../../parsing/types.ts';
import { READING_LIMITS } from './limits.ts';

/** Why a read inside a campaign is refused when no lease covers it. */
export const LEASE_RULE =
  'Inside a campaign every read needs a task lease (SPEC Authentication 10): the task_id named, or the only lease held.';

/** A read that will not be served, with everything its receipt and its error need. */
export interface ReadRefusal {
  code: ErrorCode;
  /** The rule that decided, in words (kept on the receipt; policy_explain shows it). */
  rule: string;
  message: string;
  details: Record<string, unknown>;
  retryable?: boolean;
  /** Decided by the refusing rule itself (a lease refusal knows the tasks); else by code. */
  alternatives?: Alternative[] | undefined;
  next?: string | undefined;
}

/**
 * What the refused caller can do now, so that only alternatives that can succeed are offered
 * (issue 13 item 2): a tool is named only when this caller may call it and it has something to
 * work with.
 */
export interface RefusalContext {
  /** The tool that was refused (a retry names it). */
  tool: string;
  /** The URL asked for, credential-free, when there was one. */
  url: string | null;
  /** Whether the refusal is one a later retry may get past. */
  retryable: boolean;
  /** A search provider is configured, so web_search can answer. */
  search: boolean;
  /** A stored copy of `url` is visible to the caller, so fetch_snapshot finds one. */
  snapshot: boolean;
  /**
   * Whether a fresh read without task_id would be covered now: null when it would, else the
   * moves the coverage refusal names instead (claim a task, name one).
   */
  readBlockedBy: Alternative[] | null;
}

const ASK_PERSON: Alternative = {
  action: 'Ask your user to open the page in a browser and share the public text with you.',
};

/** What a refused caller may do instead, per code, keeping only what can succeed for it now. */
export function alternativesFor(code: ErrorCode, ctx: RefusalContext): Alternative[] {
  const url = ctx.url ? { url: ctx.url } : undefined;
  const search = (action: string): Alternative[] => (ctx.search ? [{ tool: 'web_search', action }] : []);
  const read = (action: string, args?: Record<string, unknown>): Alternative[] =>
    ctx.readBlockedBy
      ? ctx.readBlockedBy
      : [{ tool: 'fetch_text', action, ...(args ? { arguments: args } : {}) }];
  const snapshot: Alternative[] = ctx.snapshot
    ? [
        {
          tool: 'fetch_snapshot',
          action: 'Read the stored copy of this URL.',
          ...(url ? { arguments: url } : {}),
        },
      ]
    : [];
  const retry: Alternative[] = ctx.retryable
    ? ctx.tool === 'fetch_text'
      ? read('Retry the read later.', url)
      : [{ tool: ctx.tool, action: 'Retry the same call in a few seconds.' }]
    : [];
  const found = ((): Alternative[] => {
    switch (code) {
      case 'NESTED_UNWRAP':
        return read('Read the embedded URL directly, if it is the page you want.');
      case 'CREDENTIAL_IN_INPUT':
        return read('Read the URL without credentials; Cairn reads only anonymous public pages.');
      case 'SIGN_IN_SURFACE':
      case 'APP_SHELL':
      case 'ROBOTS_DISALLOWED':
        return [...retry, ...search('Find another public source for the same information.'), ASK_PERSON];
      case 'UNSUPPORTED_CONTENT':
      case 'CONTENT_TOO_LARGE':
        return search('Look for the content as HTML, plain text, PDF or an image.');
      case 'UPSTREAM_UNAVAILABLE':
      case 'UPSTREAM_HTTP_ERROR':
      case 'TOO_MANY_REDIRECTS':
      case 'DEGRADED_MODE':
        return [...retry, ...snapshot, ...search('Find another public source for the same information.')];
      case 'LEASE_REQUIRED':
      case 'LEASE_AMBIGUOUS':
        return read('Read again: the leases you hold now cover it.', url);
      case 'SEARCH_NOT_CONFIGURED':
        return [
          ...read('Read a URL you already know.'),
          { action: 'Ask the operator to configure a search provider (SearXNG or Brave Search).' },
        ];
      default:
        return search('Find another public source for the same information.');
    }
  })();
  return found.length > 0 ? found : [ASK_PERSON];
}

type NetMapping = { code: ErrorCode; rule: string; retryable?: boolean };

// Typed by reason, so a reason added to net/ or parsing/ without a mapping fails to compile.
const NET_RULES: Record<NetRefusalReason, NetMapping> = {
  SCHEME_NOT_ALLOWED: { code: 'URL_NOT_ALLOWED', rule: 'Only absolute http and https URLs are read.' },
  PORT_NOT_ALLOWED: {
    code: 'URL_NOT_ALLOWED',
    rule: 'Only ports 80 and 443 are read, plus those the operator lists in CAIRN_FETCH_PORTS.',
  },
  CREDENTIALS_IN_URL: {
    code: 'CREDENTIAL_IN_INPUT',
    rule: 'Reads are anonymous: a URL carrying user credentials, a token-like query parameter or a Cairn token is never requested.',
  },
  NESTED_URL: {
    code: 'NESTED_UNWRAP',
    rule: 'A URL that embeds another URL is refused before any request: Cairn is not a proxy or redirector.',
  },
  HOST_BLOCKED: {
    code: 'ADDRESS_NOT_PUBLIC',
    rule: 'Internal host names (localhost, single-label names, *.internal, *.local, cloud metadata names) are never read.',
  },
  ADDRESS_NOT_PUBLIC: {
    code: 'ADDRESS_NOT_PUBLIC',
    rule: 'Every address a host resolves to must be public unicast; private, loopback, link-local, CGNAT, unique-local, multicast and reserved addresses, and IPv6 forms carrying them, are refused.',
  },
  SIGN_IN_SURFACE: {
    code: 'SIGN_IN_SURFACE',
    rule: 'Sign-in surfaces are never read: Cairn reads only anonymous public content.',
  },
  ROBOTS_DISALLOWED: {
    code: 'ROBOTS_DISALLOWED',
    rule: "robots.txt is honoured for Cairn's user agent (RFC 9309); a server error on robots.txt means disallow.",
  },
  REDIRECT_OUT_OF_SCOPE: {
    code: 'REDIRECT_OUT_OF_SCOPE',
    rule: 'Every redirect hop gets every check the first URL got; a hop that fails one ends the read.',
  },
  TOO_MANY_REDIRECTS: {
    code: 'TOO_MANY_REDIRECTS',
    rule: `At most ${READING_LIMITS.read.redirects} redirects.`,
  },
  RESPONSE_TOO_LARGE: {
    code: 'CONTENT_TOO_LARGE',
    rule: `Responses (and their decoded bodies) are capped at ${READING_LIMITS.read.responseBytes} bytes.`,
  },
  UNDECODABLE_BODY: {
    code: 'UNSUPPORTED_CONTENT',
    rule: 'A compressed body must decode as the encoding the site named.',
  },
  UNSUPPORTED_ENCODING: {
    code: 'UNSUPPORTED_CONTENT',
    rule: 'Bodies are decoded from gzip, deflate or br, at most two layers deep.',
  },
  DNS_FAILED: { code: 'UPSTREAM_UNAVAILABLE', rule: 'The host name must resolve.', retryable: true },
  TIMEOUT: {
    code: 'UPSTREAM_UNAVAILABLE',
    rule: `A read must finish within ${READING_LIMITS.read.timeoutSeconds} seconds.`,
    retryable: true,
  },
  CONNECTION_FAILED: { code: 'UPSTREAM_UNAVAILABLE', rule: 'The site must accept a connection.' },
};

const PARSE_RULES: Record<ParseRefusalReason, NetMapping> = {
  UNSUPPORTED_CONTENT_TYPE: {
    code: 'UNSUPPORTED_CONTENT',
    rule: 'Only HTML, plain text, JSON, PDF, PNG and JPEG are read.',
  },
  UNREADABLE_CONTENT: { code: 'UNSUPPORTED_CONTENT', rule: 'The content must parse as its type.' },
  TOO_MANY_PAGES: {
    code: 'CONTENT_TOO_LARGE',
    rule: `PDFs are read up to ${IMPORT_LIMITS.pdfPages} pages.`,
  },
  TOO_MANY_PIXELS: {
    code: 'CONTENT_TOO_LARGE',
    rule: `Images are read up to ${IMPORT_LIMITS.embeddedImagePixels} pixels.`,
  },
  PARSE_TIMEOUT: {
    code: 'DOCUMENT_TOO_COMPLEX',
    rule: 'Parsing one document must finish within its time limit (10 s for HTML, text and JSON; 30 s for PDFs and images).',
  },
};

/** Maps a failure of the fetcher or the parsers to the refusal the caller sees; null for anything else. */
export function refusalOf(err: unknown): ReadRefusal | null {
  if (err instanceof ParserBusy) {
    return {
      code: 'DEGRADED_MODE',
      rule: 'At most CAIRN_PARSER_JOBS parser or OCR jobs (default two) run per process, and a short line may wait for one, but only a job expected to start within five seconds is let in; past that the work is refused, not queued.',
      message:
        err.share === 'OWNER'
          ? `Your share of the parser and OCR capacity is in use by your own reads and imports; retry in ${err.retryAfterSeconds} seconds.`
          : `The parser and OCR capacity is busy; retry in ${err.retryAfterSeconds} seconds.`,
      details: { retry_after_seconds: err.retryAfterSeconds, share: err.share },
    };
  }
  const mapped =
    err instanceof NetRefusal
      ? NET_RULES[err.reason]
      : err instanceof ParseRefusal
        ? PARSE_RULES[err.reason]
        : null;
  if (!mapped || !(err instanceof NetRefusal || err instanceof ParseRefusal)) return null;
  // The reason code last, so no detail of the same name can replace it.
  const details: Record<string, unknown> = { ...err.details, reason: err.reason };
  if (typeof details.redirect_target === 'string')
    details.redirect_target = receiptUrl(details.redirect_target);
  // robots.txt that could not be read is a passing condition (rechecked after a minute), not a rule.
  const retryable =
    err.reason === 'ROBOTS_DISALLOWED' && details.robots_basis !== 'RULES' ? true : mapped.retryable;
  return {
    code: mapped.code,
    rule: mapped.rule,
    message: err.message,
    details,
    ...(retryable !== undefined ? { retryable } : {}),
  };
}

/** A response with an error status is not evidence of the page: refused, retryable for 429 and 5xx. */
export function upstreamStatusRefusal(status: number, url: string): ReadRefusal {
  return {
    code: 'UPSTREAM_HTTP_ERROR',
    rule: 'Only successful (2xx) responses become evidence.',
    message: `The site answered ${status} for ${url.slice(0, 300)}.`,
    details: { http_status: status },
    retryable: status === 429 || status >= 500,
  };
}

/**
 * The text a receipt (or a refusal's details) keeps of a URL: only its origin when it carries a
 * credential anywhere, whatever else made the read fail, since path and query may hold it.
 */
export function receiptUrl(url: string): string {
  if (!urlCarriesCredential(url)) return url;
  try {
    return `${new URL(url).origin}/[redacted]`;
  } catch {
    return '[redacted]';
  }
}
