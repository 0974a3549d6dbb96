import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

/**
 * The load generator: N official SDK clients, each connected (initialize) and then calling one
 * tool back to back until the deadline. Using the real client keeps the benchmark honest about
 * what an agent pays per call (JSON-RPC framing, session and protocol headers).
 */

export interface LoadOptions {
  /** The MCP endpoint, e.g. http://127.0.0.1:1234/mcp. */
  url: string;
  /** Extra request headers (the bearer credential for Cairn). */
  headers: Record<string, string>;
  tool: string;
  /** The tool's arguments (none when omitted), or a function making fresh ones for each call. */
  args?: Record<string, unknown> | (() => Record<string, unknown>);
  clients: number;
  warmupSeconds: number;
  seconds: number;
  /** Checks a successful result's structuredContent; returns what is wrong, or null. */
  check(structured: unknown): string | null;
  /**
   * Do as an agent is told on a DEGRADED_MODE refusal: wait `details.retry_after_seconds`, then
   * call again. Such refusals are counted in `deferred`, not `errors`; the waiting is the client's
   * time like any other, so it lowers the figure. Off by default: a refusal is an error.
   */
  honourRetryAfter?: boolean;
}

export interface LoadResult {
  /** Successful calls per second in the measured window. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  /** Calls completed in the measured window, errors included. */
  calls: number;
  errors: number;
  firstError: string | null;
  /** DEGRADED_MODE refusals waited out as told (with `honourRetryAfter`), in the measured window. */
  deferred: number;
}

interface Connected {
  client: Client;
  transport: StreamableHTTPClientTransport;
}

interface ClientTally {
  latencies: number[];
  errors: number;
  firstError: string | null;
  deferred: number;
}

/** A call refused with DEGRADED_MODE and told when to come back. */
class Deferred {
  constructor(readonly seconds: number) {}
}

async function connect(o: LoadOptions, index: number): Promise<Connected> {
  const client = new Client({ name: `bench-${index}`, version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(o.url), {
    requestInit: { headers: o.headers },
  });
  await client.connect(transport);
  return { client, transport };
}

/** Ends the session politely (Cairn keeps sessions in its database, which may be reused), then closes. */
async function disconnect({ client, transport }: Connected): Promise<void> {
  await transport.terminateSession().catch(() => {});
  await client.close().catch(() => {});
}

/** The retry hint of a DEGRADED_MODE refusal's text, or null for any other result. */
function retryAfterOf(content: unknown): number | null {
  const first = Array.isArray(content) ? (content[0] as { type?: string; text?: string }) : null;
  if (first?.type !== 'text' || !first.text?.includes('DEGRADED_MODE')) return null;
  try {
    const { error } = JSON.parse(first.text) as {
      error?: { code?: string; details?: { retry_after_seconds?: unknown } };
    };
    const seconds = error?.details?.retry_after_seconds;
    return error?.code === 'DEGRADED_MODE' && typeof seconds === 'number' && seconds > 0 ? seconds : null;
  } catch {
    return null;
  }
}

/** One call: null when it succeeded, a Deferred when told to come back, else what went wrong. */
async function callOnce(client: Client, o: LoadOptions): Promise<string | Deferred | null> {
  try {
    const result = await client.callTool(
      { name: o.tool, arguments: typeof o.args === 'function' ? o.args() : (o.args ?? {}) },
      undefined,
      // Reads can take longer than the SDK's default of 60 s under heavy load.
      { timeout: 120_000 },
    );
    if (result.isError) {
      const retryAfter = o.honourRetryAfter ? retryAfterOf(result.content) : null;
      if (retryAfter !== null) return new Deferred(retryAfter);
      return `isError: ${JSON.stringify(result.content).slice(0, 300)}`;
    }
    return o.check(result.structuredContent);
  } catch (err) {
    return `threw: ${(err as Error)?.message ?? err}`;
  }
}

/**
 * Calls back to back until `until`. Only calls completing inside [from, until] count: the ones
 * before `from` are warm-up (JIT, connection pools, caches), the ones after are the tail-off.
 */
async function loop(client: Client, o: LoadOptions, from: number, until: number): Promise<ClientTally> {
  const tally: ClientTally = { latencies: [], errors: 0, firstError: null, deferred: 0 };
  while (performance.now() < until) {
    const started = performance.now();
    const problem = await callOnce(client, o);
    const ended = performance.now();
    if (problem instanceof Deferred) {
      if (ended >= from && ended <= until) tally.deferred++;
      await new Promise((resolve) => setTimeout(resolve, problem.seconds * 1000));
      continue;
    }
    if (ended < from || ended > until) continue;
    if (problem === null) {
      tally.latencies.push(ended - started);
    } else {
      tally.errors++;
      tally.firstError ??= problem;
    }
  }
  return tally;
}

/** Nearest-rank percentile of sorted values. */
function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const connected = await Promise.all(Array.from({ length: o.clients }, (_, i) => connect(o, i)));
  try {
    const from = performance.now() + o.warmupSeconds * 1000;
    const until = from + o.seconds * 1000;
    const tallies = await Promise.all(connected.map(({ client }) => loop(client, o, from, until)));
    const latencies = Float64Array.from(tallies.flatMap((t) => t.latencies)).sort();
    const errors = tallies.reduce((n, t) => n + t.errors, 0);
    return {
      rps: latencies.length / o.seconds,
      p50Ms: percentile(latencies, 0.5),
      p99Ms: percentile(latencies, 0.99),
      calls: latencies.length + errors,
      errors,
      firstError: tallies.find((t) => t.firstError)?.firstError ?? null,
      deferred: tallies.reduce((n, t) => n + t.deferred, 0),
    };
  } finally {
    await Promise.all(connected.map(disconnect));
  }
}
