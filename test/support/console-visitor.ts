import { randomBytes } from 'node:crypto';

/**
 * A client address from the IPv6 documentation range in a /64 of its own (addresses count per
 * /64), so address throttling never leaks between tests or test files.
 */
export const freshAddress = () =>
  `2001:db8:${randomBytes(2).toString('hex')}:${randomBytes(2).toString('hex')}::1`;

/**
 * A browser stand-in for the owner console: plain fetch, cookies kept by hand, redirects not
 * followed (so tests see each 303), and a client address sent as X-Forwarded-For (the console
 * test server trusts it) so throttling by address can be tested from one loopback socket.
 */
export interface Page {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

export class Visitor {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly baseUrl: string,
    public address = freshAddress(),
  ) {}

  /** Calls a JSON owner operation (`/v1/...`) with this visitor's session cookie. */
  // biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON answers
  async api(method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const headers: Record<string, string> = {
      cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      redirect: 'manual',
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  }

  get(path: string): Promise<Page> {
    return this.request('GET', path);
  }

  /** Posts a form as a browser does (application/x-www-form-urlencoded). */
  post(path: string, fields: Record<string, string | undefined>): Promise<Page> {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) body.append(k, v);
    return this.request('POST', path, body.toString());
  }

  /** Loads a page and posts its form back with the page's CSRF token, like a person pressing submit. */
  async submit(pagePath: string, action: string, fields: Record<string, string | undefined>): Promise<Page> {
    const page = await this.get(pagePath);
    return this.post(action, { csrf: csrfOf(page.text), ...fields });
  }

  async signUp(email: string, password = 'correct horse battery staple'): Promise<Page> {
    return this.submit('/console/signup', '/console/signup', { email, password, password_repeat: password });
  }

  async signIn(email: string, password = 'correct horse battery staple', next?: string): Promise<Page> {
    return this.submit('/console/signin', '/console/signin', { email, password, next });
  }

  async signOut(): Promise<Page> {
    return this.submit('/console', '/console/signout', {});
  }

  private async request(method: string, path: string, body?: string): Promise<Page> {
    const headers: Record<string, string> = { 'x-forwarded-for': this.address };
    if (this.cookies.size) {
      headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    }
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      redirect: 'manual',
      ...(body !== undefined ? { body } : {}),
    });
    for (const line of res.headers.getSetCookie()) this.store(line);
    return {
      status: res.status,
      headers: res.headers,
      text: await res.text(),
      location: res.headers.get('location'),
    };
  }

  private store(setCookie: string): void {
    const [pair, ...attrs] = setCookie.split(';');
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq).trim();
    const value = pair!.slice(eq + 1).trim();
    const expired = attrs.some((a) => {
      const [k, v] = a.trim().split('=');
      if (k?.toLowerCase() === 'max-age') return Number(v) <= 0;
      if (k?.toLowerCase() === 'expires') return new Date(v ?? '').getTime() < Date.now();
      return false;
    });
    if (expired || value === '') this.cookies.delete(name);
    else this.cookies.set(name, value);
  }
}

/** The CSRF token of the first form on a page. */
export function csrfOf(html: string): string {
  const m = /name="csrf" value="([^"]*)"/.exec(html);
  if (!m?.[1]) throw new Error('no CSRF token on the page');
  return m[1];
}

/** The text of the page's error notice, if any. */
export function errorOf(html: string): string | null {
  const m = /<p class="notice error" role="alert">([\s\S]*?)<\/p>/.exec(html);
  return m?.[1]?.trim() ?? null;
}

/** A secret shown once on a page (bootstrap token, project key). */
export function secretOf(html: string, prefix: 'cd_boot_' | 'cd_prj_'): string | null {
  const m = new RegExp(`(${prefix}[a-z2-7]{52})`).exec(html);
  return m?.[1] ?? null;
}
