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

/** Provider text as plain text: Brave marks matches with <strong>; a snippet is never markup. */
const clip = (value: unknown, max: number) =>
  typeof value === 'string' ? value.replace(/<[^>]*>/g, '').slice(0, max) : '';

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
  } catch (err) {
    throw new DomainError('SEARCH_FAILED', `${provider} could not be reached.`, {
      provider,
      cause: (err as Error).message.slice(0, 300),
    });
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
