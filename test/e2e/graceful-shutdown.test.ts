import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, newMember } from '../support/campaigns.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 14 item 7: SIGTERM under load. The replica stops accepting, a waiting events_watch
 * answers at once, the notification stream is told why it ends, calls in flight finish or are
 * refused cleanly (never INTERNAL), nothing acknowledged is lost, and the process exits 0 within
 * its documented bound. PostgreSQL only, on a database of this file's own.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
let own: OwnDatabase;
let setup: TestServer;
let replica: Replica;

beforeAll(async () => {
  if (!url) return;
  own = await ownDatabase('cairn_stop', url);
  setup = await startTestServer({ database: own.database, env: { CAIRN_SECRET: secret } });
  replica = await startReplica(own.url, secret);
}, 120_000);
afterAll(async () => {
  await replica?.stop(1_000);
  await setup?.close();
  await own?.drop();
});

const mcpHeaders = (key: string, session?: string) => ({
  authorization: `Bearer ${key}`,
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  ...(session ? { 'mcp-session-id': session } : {}),
});

describe.skipIf(!url)('SIGTERM under load', () => {
  it('drains waits, tells streams why, loses nothing acknowledged, and exits 0 in time', async () => {
    const m = await newMember(setup);
    const campaignId = await campaignWith(m, []);
    const client = await connectClient(replica.url, m.key);

    // A notification stream on an initialized session.
    const init = await fetch(`${replica.url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(m.key),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: {},
          clientInfo: { name: 'stop', version: '1' },
        },
      }),
    });
    const session = init.headers.get('mcp-session-id') as string;
    await init.text();
    const stream = await fetch(`${replica.url}/mcp`, { headers: mcpHeaders(m.key, session) });
    expect(stream.status).toBe(200);
    const streamText = stream.text();

    // A watch waiting for an event.
    const start = await callTool(client, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 });
    const waiting = callTool(client, 'events_watch', {
      campaign_id: campaignId,
      cursor: start.body.cursor,
      wait_seconds: 50,
    });

    // Writers until the server is gone.
    const acknowledged: string[] = [];
    const refusals: string[] = [];
    let n = 0;
    const writer = async () => {
      for (;;) {
        const key = `graceful-stop-${n++}`;
        const res = await fetch(`${replica.url}/mcp`, {
          method: 'POST',
          headers: mcpHeaders(m.key),
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: n,
            method: 'tools/call',
            params: {
              name: 'message_append',
              arguments: { campaign_id: campaignId, type: 'NOTE', content: key, idempotency_key: key },
            },
          }),
        }).catch(() => null);
        if (!res) return; // refused at the socket: the server stopped accepting
        const text = await res.text();
        if (res.status !== 200) {
          refusals.push(text);
          continue;
        }
        const answer = JSON.parse(text);
        const body = answer.result?.structuredContent;
        if (body?.message_id) acknowledged.push(body.message_id);
        else refusals.push(text);
      }
    };
    const writers = Promise.all([writer(), writer(), writer()]);
    await new Promise((r) => setTimeout(r, 800));

    const stoppedAt = Date.now();
    const exited = replica.stop(20_000);
    const woken = await waiting;
    const drainedMs = Date.now() - stoppedAt;
    const { code, signal } = await exited;
    const exitMs = Date.now() - stoppedAt;
    await writers;

    expect(woken.isError, JSON.stringify(woken.body)).toBe(false);
    expect(drainedMs).toBeLessThan(3_000);
    expect(await streamText).toContain(': closing: this server is shutting down');
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    // Calls in flight are short, and connections without one end at once (issue 38: measured
    // 140-150 ms; it was over 5 s whenever a connection sat idle, 7.3 s under load).
    expect(exitMs).toBeLessThan(1_500);
    for (const r of refusals) expect(r, 'a refusal during shutdown').toMatch(/SERVICE_UNAVAILABLE/);
    expect(acknowledged.length).toBeGreaterThan(5);
    const stored = new Set(
      (
        await own.audit<{ id: string }>(
          sql`select id from campaign_messages where campaign_id = ${campaignId}`,
        )
      ).map((r) => r.id),
    );
    expect(
      acknowledged.filter((id) => !stored.has(id)),
      'acknowledged but missing',
    ).toEqual([]);
  }, 60_000);
});
