import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sql } from 'drizzle-orm';
import { TABLES } from '../src/domains/catalog.ts';
import { IdentityService } from '../src/domains/identity/index.ts';
import { systemClock } from '../src/kernel/clock.ts';
import { openDatabase } from '../src/storage/database.ts';

/**
 * Set-up for the campaign benchmark: identities made through the real identity service on the
 * benchmark's own database (before `serve` locks an embedded data dir), and the plain baseline
 * of a wake-up: one NOTIFY reaching one LISTEN through the same database layer, no Cairn on top.
 */

/** The database `cairn serve` will open: PostgreSQL, or PGlite in the data dir's `pg` folder (as src/main.ts). */
function open(where: { databaseUrl?: string | undefined; dataDir: string }) {
  return openDatabase(
    where.databaseUrl
      ? { tables: TABLES, databaseUrl: where.databaseUrl }
      : { tables: TABLES, dataDir: path.join(where.dataDir, 'pg') },
  );
}

export interface Identity {
  agentId: string;
  key: string;
}

export async function provisionAgents(
  where: { databaseUrl?: string | undefined; dataDir: string },
  count: number,
): Promise<Identity[]> {
  const database = await open(where);
  try {
    // Provisioning only: nothing here authenticates, so the audience is never compared.
    const identity = new IdentityService(database, systemClock, 'http://127.0.0.1/mcp');
    const email = `bench-${randomUUID()}@example.org`;
    await identity.addOwner(email, randomUUID());
    const out: Identity[] = [];
    for (let i = 0; i < count; i++) {
      const { agent_id } = await identity.addAgent({
        ownerEmail: email,
        displayName: `bench ${i}`,
        runtime: 'bench',
        kind: 'OWNER_CREATED',
      });
      await identity.setMode(agent_id, 'READ');
      const { project_key } = await identity.addProjectKey(agent_id, 1);
      out.push({ agentId: agent_id, key: project_key });
    }
    return out;
  } finally {
    await database.close();
  }
}

/** NOTIFY → LISTEN latency in milliseconds over `trials` round trips, the floor under any wake-up. */
export async function notifyLatencies(
  where: { databaseUrl?: string | undefined; dataDir: string },
  trials: number,
): Promise<number[]> {
  const database = await open(where);
  const channel = `bench_${randomUUID().replaceAll('-', '')}`;
  let wake: (() => void) | null = null;
  const stop = await database.listen(channel, () => wake?.());
  try {
    const out: number[] = [];
    for (let i = 0; i < trials; i++) {
      const woken = new Promise<void>((resolve) => {
        wake = resolve;
      });
      const started = performance.now();
      await database.db.execute(sql`select pg_notify(${channel}, 'x')`);
      await woken;
      out.push(performance.now() - started);
    }
    return out;
  } finally {
    await stop();
    await database.close();
  }
}

/**
 * An SDK client connected with a bearer credential (none for the minimal server, which takes
 * none), and what a raw call needs of its session.
 */
export async function connect(baseUrl: string, key?: string): Promise<Client & { raw: RawSession }> {
  const client = new Client({ name: 'bench-campaign', version: '1.0.0' });
  const auth: Record<string, string> = key ? { authorization: `Bearer ${key}` } : {};
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), {
    requestInit: { headers: auth },
  });
  await client.connect(transport);
  const raw: RawSession = {
    url: `${baseUrl}/mcp`,
    headers: {
      ...auth,
      'mcp-session-id': transport.sessionId ?? '',
      'mcp-protocol-version': transport.protocolVersion ?? '',
      accept: 'application/json, text/event-stream',
      'content-type': 'application/json',
    },
  };
  return Object.assign(client, { raw });
}

export interface RawSession {
  url: string;
  headers: Record<string, string>;
}

/** Calls a tool; throws with the error envelope when it fails. */
export async function call(client: Client, name: string, args: Record<string, unknown>, timeout = 120_000) {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout });
  const body = result.structuredContent as Record<string, unknown>;
  if (result.isError) throw new BenchCallError(name, body);
  return body;
}

export class BenchCallError extends Error {
  constructor(
    readonly tool: string,
    readonly body: Record<string, unknown>,
  ) {
    super(`${tool} failed: ${JSON.stringify(body).slice(0, 400)}`);
  }

  get code(): string | undefined {
    return (this.body.error as { code?: string } | undefined)?.code;
  }
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export const key = () => `bench-${randomUUID()}`;
