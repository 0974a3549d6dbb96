/** MCP 2026-07-28 requests as a client sends them over HTTP, for tests of the stateless revision. */

// biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON-RPC answers
export type Json = Record<string, any>;

export const MODERN = '2026-07-28';

/** The `_meta` every 2026-07-28 request carries. */
export function modernMeta(capabilities: Json = {}): Json {
  return {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientCapabilities': capabilities,
    'io.modelcontextprotocol/clientInfo': { name: 'vitest-modern', version: '1.0.0' },
  };
}

/** A request body with the `_meta` in its params. */
export function modernRequest(id: number | string, method: string, params: Json = {}): Json {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta() } };
}

/** The standard headers for a body: version, Mcp-Method and, where it has one, Mcp-Name. */
export function modernHeaders(bearer: string, body: Json): Record<string, string> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${bearer}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
  };
  if (typeof body.method === 'string') headers['mcp-method'] = body.method;
  const name = body.params?.name ?? body.params?.uri;
  if (typeof name === 'string' && ['tools/call', 'prompts/get', 'resources/read'].includes(body.method)) {
    headers['mcp-name'] = name;
  }
  return headers;
}

/**
 * POSTs `body` with the standard headers, `headers` over them (undefined removes one);
 * answers the status, headers and parsed body (null when empty).
 */
export async function postModern(
  url: string,
  bearer: string,
  body: Json | string,
  headers: Record<string, string | undefined> = {},
): Promise<{ status: number; headers: Headers; body: Json | null }> {
  const merged: Record<string, string> = {};
  const base = typeof body === 'string' ? modernHeaders(bearer, {}) : modernHeaders(bearer, body);
  for (const [k, v] of Object.entries({ ...base, ...headers })) if (v !== undefined) merged[k] = v;
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: merged,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text === '' ? null : (JSON.parse(text) as Json) };
}

/** An open `subscriptions/listen` stream: its messages as they arrive. */
export interface ListenStream {
  status: number;
  contentType: string | null;
  messages: Json[];
  /** Resolves with the first message (from `from` on) that `match` accepts; rejects after `ms`. */
  next(match: (m: Json) => boolean, ms?: number, from?: number): Promise<Json>;
  /** Resolves when the server has ended the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openListen(
  url: string,
  bearer: string,
  id: number | string,
  notifications: Json,
): Promise<ListenStream> {
  const controller = new AbortController();
  const body = modernRequest(id, 'subscriptions/listen', { notifications });
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: modernHeaders(bearer, body),
    body: JSON.stringify(body),
    signal: controller.signal,
  });
  const messages: Json[] = [];
  const waiters = new Set<() => void>();
  let buffer = '';
  const ended = (async () => {
    if (!res.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of res.body) {
        buffer += decoder.decode(chunk as Uint8Array, { stream: true });
        let cut = buffer.indexOf('\n\n');
        while (cut >= 0) {
          const event = buffer.slice(0, cut);
          buffer = buffer.slice(cut + 2);
          const data = event
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).trim())
            .join('');
          if (data) messages.push(JSON.parse(data) as Json);
          for (const w of waiters) w();
          cut = buffer.indexOf('\n\n');
        }
      }
    } catch {
      // Aborted by close(), or the server dropped the connection.
    }
    for (const w of waiters) w();
  })();
  let done = false;
  void ended.then(() => {
    done = true;
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    messages,
    ended,
    close: () => controller.abort(),
    next(match, ms = 2_000, from = 0) {
      return new Promise((resolve, reject) => {
        const look = () => {
          const found = messages.slice(from).find(match);
          if (found) {
            clearTimeout(timer);
            waiters.delete(look);
            resolve(found);
          } else if (done) {
            clearTimeout(timer);
            waiters.delete(look);
            reject(new Error(`stream ended; messages: ${JSON.stringify(messages)}`));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(look);
          reject(new Error(`no matching message in ${ms} ms; messages: ${JSON.stringify(messages)}`));
        }, ms);
        waiters.add(look);
        look();
      });
    },
  };
}
