import type { Config } from '../../config/config.ts';
import { DomainError } from '../../kernel/errors.ts';

/** One search hit: a candidate URL to read, never the page text itself. */
export interface SearchHit {
  title: string;
  url: string;
  snippet: string;
  provider: string;
}

/** An operator-configured search service, reached through the guarded fetcher. */
export interface ServiceFetcher {
  /** GET of an operator-configured service URL with the headers it needs (e.g. an API key). */
  fetchService(url: string, headers: Record<string, string>): Promise<{ status: number; body: Buffer }>;
}

export interface SearchProvider {
  readonly name: string;
  search(query: string, limit: number): Promise<SearchHit[]>;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Provider text as plain text: Brave marks matches with <strong> and escapes entities; a snippet is never markup. */
function clip(value: unknown, max: number): string {
  if (typeof value !== 'string') return '';
  return value
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
      if (name[0] !== '#') return ENTITIES[name.toLowerCase()] ?? whole;
      const code =
        name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
      return code > 0x1f && code <= 0x10ffff ? String.fromCodePoint(code) : '';
    })
    .replace(/[\p{Cc}\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu, '')
    .slice(0, max);
}

/** Keeps only http(s) URLs of sane length: a provider is trusted for ranking, not for content. */
function hit(provider: string, title: unknown, url: unknown, snippet: unknown): SearchHit | null {
  if (typeof url !== 'string' || url.length > 2_048) return null;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  } catch {
    return null;
  }
  return { title: clip(title, 300), url, snippet: clip(snippet, 500), provider };
}

async function getJson(
  fetcher: ServiceFetcher,
  provider: string,
  url: string,
  headers: Record<string, string>,
) {
  let res: { status: number; body: Buffer };
  try {
    res = await fetcher.fetchService(url, headers);
  } catch {
    // The cause stays out: it would show agents the operator's provider address.
    throw new DomainError('SEARCH_FAILED', `${provider} could not be reached.`, { provider });
  }
  if (res.status !== 200) {
    throw new DomainError('SEARCH_FAILED', `${provider} answered HTTP ${res.status}.`, {
      provider,
      http_status: res.status,
    });
  }
  try {
    return JSON.parse(res.body.toString('utf8')) as Record<string, unknown>;
  } catch {
    throw new DomainError('SEARCH_FAILED', `${provider} did not answer with JSON.`, { provider });
  }
}

/** SearXNG's JSON API (`/search?format=json`); the instance must have the json format enabled. */
export class SearxngProvider implements SearchProvider {
  readonly name = 'searxng';
  constructor(
    private readonly fetcher: ServiceFetcher,
    private readonly baseUrl: string,
  ) {}

  async search(query: string, limit: number): Promise<SearchHit[]> {
    const url = new URL('search', this.baseUrl.endsWith('/') ? this.baseUrl : `${this.baseUrl}/`);
    url.searchParams.set('q', query);
    url.searchParams.set('format', 'json');
    const body = await getJson(this.fetcher, this.name, url.href, { accept: 'application/json' });
    const results = Array.isArray(body.results) ? (body.results as Array<Record<string, unknown>>) : [];
    return results
      .map((r) => hit(this.name, r.title, r.url, r.content))
      .filter((h): h is SearchHit => h !== null)
      .slice(0, limit);
  }
}

/** The Brave Search web API; the subscription token is the operator's and travels only to Brave. */
export class BraveProvider implements SearchProvider {
  readonly name = 'brave';
  constructor(
    private readonly fetcher: ServiceFetcher,
    private readonly apiKey: string,
    private readonly endpoint: string,
  ) {}

  async search(query: string, limit: number): Promise<SearchHit[]> {
    const url = new URL(this.endpoint);
    url.searchParams.set('q', query);
    url.searchParams.set('count', String(limit));
    const body = await getJson(this.fetcher, this.name, url.href, {
      accept: 'application/json',
      'x-subscription-token': this.apiKey,
    });
    const web = (body.web ?? {}) as Record<string, unknown>;
    const results = Array.isArray(web.results) ? (web.results as Array<Record<string, unknown>>) : [];
    return results
      .map((r) => hit(this.name, r.title, r.url, r.description))
      .filter((h): h is SearchHit => h !== null)
      .slice(0, limit);
  }
}

/** The configured web_search provider, if any: SearXNG first, then Brave. */
export function searchProviderFor(config: Config['search'], fetcher: ServiceFetcher): SearchProvider | null {
  if (config.searxngUrl) return new SearxngProvider(fetcher, config.searxngUrl);
  if (config.braveApiKey) return new BraveProvider(fetcher, config.braveApiKey, config.braveUrl);
  return null;
}
