import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, newMember } from '../support/campaigns.ts';
import { callTool, postToolCall } from '../support/factories.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 38: connections that never finish what they started. `cairn serve` started the real way,
 * on the embedded database or (in the PostgreSQL leg) on a database of this file's own.
 * - SIGTERM while connections sit idle, half-sent or left open by a closed client: the process
 *   exits within a second and a half (it waited 5 s for its force timer).
 * - A client that never reads what it asked for is disconnected after the write deadline.
 * - A waiting events_watch whose client went away stops waiting.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let own: OwnDatabase | null = null;
// One replica for the file (starting one takes seconds): the reader first, then SIGTERM ends it.
let r: Replica;
// And an in-process server, for the watch whose client leaves (its metrics show when the call ended).
let server: TestServer;
const metricsToken = randomBytes(16).toString('hex');

beforeAll(async () => {
  if (url) own = await ownDatabase('cairn_slow', url);
  r = await startReplica(own?.url ?? null, secret, {
    CAIRN_WRITE_TIMEOUT_SECONDS: '2',
    CAIRN_PUBLIC_RATE_LIMIT: '10000',
  });
  server = await startTestServer({ env: { CAIRN_METRICS_TOKEN: metricsToken } });
}, 90_000);
afterAll(async () => {
  await server?.close();
  await r?.stop(2_000);
  await own?.drop();
});

/** A raw TCP connection to the replica, open once connected. */
function rawSocket(base: string): Promise<Socket> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const s = connect({ host: hostname, port: Number(port) }, () => resolve(s));
    s.once('error', reject);
  });
}

describe('connections that never finish', () => {
  it('disconnects a client that asks and never reads, after the write deadline', async () => {
    const one = Buffer.byteLength(await (await fetch(`${r.url}/openapi.json`)).text());
    // Far more than the operating system's socket buffers hold on both sides, so answers back up
    // into the server's own buffers.
    const asked = Math.ceil((128 * 1024 * 1024) / one);
    const s = await rawSocket(r.url);
    s.on('error', () => {});
    // Never read: nothing of the answers is taken.
    s.pause();
    s.write('GET /openapi.json HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(asked));
    let closed = false;
    s.once('close', () => {
      closed = true;
    });
    // A paused socket notices its end only when it writes: an empty line every quarter second
    // (HTTP lets empty lines precede a request) fails once the server has closed the connection.
    const by = Date.now() + 30_000;
    while (!closed && Date.now() < by) {
      s.write('\r\n');
      await sleep(250);
    }
    expect(closed, 'the server ended the connection').toBe(true);
    // The replica itself is fine.
    expect((await fetch(`${r.url}/health`)).status).toBe(200);
  }, 90_000);

  it('SIGTERM with idle, half-sent and abandoned connections open exits 0 within 1.5 s', async () => {
    const idle = await rawSocket(r.url);
    const half = await rawSocket(r.url);
    half.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n');
    // A keep-alive connection that has had its answer and then sits there, as a closed client leaves it.
    const used = await rawSocket(r.url);
    used.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((res) => used.once('data', res));
    const ended: string[] = [];
    for (const [name, s] of [
      ['idle', idle],
      ['half-sent', half],
      ['used', used],
    ] as const) {
      s.on('error', () => {});
      s.once('close', () => ended.push(name));
    }
    await sleep(200);

    const at = Date.now();
    const { code, signal } = await r.stop(10_000);
    const tookMs = Date.now() - at;
    expect({ code, signal }, r.output()).toEqual({ code: 0, signal: null });
    expect(tookMs).toBeLessThan(1_500);
    await sleep(100);
    expect(ended.sort()).toEqual(['half-sent', 'idle', 'used']);
  }, 90_000);

  it('stops a waiting events_watch as soon as its client has gone', async () => {
    const m = await newMember(server);
    const campaignId = await campaignWith(m, []);
    const start = await callTool(m.client, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 });
    /** events_watch calls this server has finished, and the seconds they took together. */
    const finished = async () => {
      const text = await (
        await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })
      ).text();
      const value = (name: string) =>
        Number(
          text.match(new RegExp(`^${name}\\{tool="events_watch",outcome="ok"\\} (\\S+)$`, 'm'))?.[1] ?? 0,
        );
      return {
        count: value('cairn_tool_call_duration_seconds_count'),
        seconds: value('cairn_tool_call_duration_seconds_sum'),
      };
    };
    const before = await finished();
    const leaving = new AbortController();
    const call = postToolCall(
      server.url,
      m.key,
      'events_watch',
      { campaign_id: campaignId, cursor: start.body.cursor, wait_seconds: 50 },
      leaving.signal,
    ).catch(() => null);
    await sleep(1_000);
    leaving.abort();
    await call;
    const by = Date.now() + 3_000;
    let after = await finished();
    while (after.count === before.count && Date.now() < by) {
      await sleep(100);
      after = await finished();
    }
    // Ended within moments of the client leaving, not after its 50 seconds (or a 5 s re-check).
    expect(after.count).toBe(before.count + 1);
    expect(after.seconds - before.seconds).toBeLessThan(2.5);
  });
});
