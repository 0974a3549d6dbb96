import { decodeRepeatedly as decodePercent } from './percent.ts';

/**
 * Finds a URL folded inside another URL. A reader that fetched `?next=https://elsewhere` or
 * `/proxy/https%3A%2F%2Felsewhere` on request would be an open proxy or redirector, so such a
 * URL is refused before any request, however many times the inner URL was percent-encoded.
 */

/** Percent-encoding layers undone before judging: more than any legitimate link uses. */
const MAX_DECODE_ROUNDS = 5;

// A network scheme followed by something other than white space: `http:x.example`, `http:/x`
// and `http:\\x` are all URLs to a WHATWG parser, but `what is http: a guide` is prose.
// `file:` counts only with a slash, so wiki titles like `File:Example.jpg` are not URLs.
const SCHEME_URL = /(?:^|[^a-z0-9+.-])(?:(?:https?|ftps?|wss?|gopher):[^\s]|file:[/\\])/i;
// Protocol-relative `//host` (backslashes count as slashes in http URLs).
const PROTOCOL_RELATIVE = /^[/\\]{2,}[^/\\\s]/;
// A path segment that is just a scheme (`/proxy/http:/x.example` splits into `http:` and `x.example`).
const SCHEME_SEGMENT = /^(?:(?:https?|ftps?|wss?|gopher):|file:$)/i;
// WHATWG parsers drop tabs and newlines anywhere in a URL, so `ht%09tp://` still reaches http.
const IGNORED_BY_PARSERS = /[\t\n\r]/g;

function decodeRepeatedly(value: string, plusIsSpace: boolean): string {
  return decodePercent(value, MAX_DECODE_ROUNDS, plusIsSpace).replace(IGNORED_BY_PARSERS, '');
}

function holdsUrl(decoded: string): boolean {
  const value = decoded.trim();
  return SCHEME_URL.test(value) || PROTOCOL_RELATIVE.test(value);
}

/** Where a nested URL sits: `where` in words, `parameter` when it is a query parameter. */
export interface NestedUrl {
  where: string;
  parameter?: string;
}

/**
 * Where `url` carries another URL, or null. Ordinary values such as `?q=what is http` or
 * `?ref=docs` are not URLs and pass.
 */
export function findNestedUrl(url: URL): NestedUrl | null {
  for (const [name, value] of url.searchParams) {
    if (holdsUrl(decodeRepeatedly(name, true)) || holdsUrl(decodeRepeatedly(value, true))) {
      const parameter = name.slice(0, 100);
      return { where: `query parameter "${parameter}"`, parameter };
    }
  }
  for (const [i, segment] of url.pathname.split('/').entries()) {
    const decoded = decodeRepeatedly(segment, false);
    if (holdsUrl(decoded) || SCHEME_SEGMENT.test(decoded.trim())) return { where: `path segment ${i}` };
  }
  // Encoded slashes can hide the boundary between segments: `/a%2Fhttps:%2F%2Fx.example`.
  if (/(?:^|\/)(?:(?:https?|ftps?|wss?|gopher):|file:\/)/i.test(decodeRepeatedly(url.pathname, false))) {
    return { where: 'path' };
  }
  return null;
}
