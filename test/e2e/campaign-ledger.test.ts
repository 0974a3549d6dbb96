import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignMembers } from '../../src/domains/campaigns/tables.ts';
import { campaignWith, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { onPostgres } from '../support/database.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { freePort, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 5 item 8: events_watch returns what follows the cursor, or a heartbeat with the same
 * cursor; LISTEN/NOTIFY wakes it across replicas and processes; no visible event is skipped.
 */

// Every replica (and the spawned process) signs cursors alike, as replicas of one deployment do.
const SECRET = 'ledger-test-signing-secret-0123456789abcdef';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_SECRET: SECRET } });
});
afterAll(async () => {
  await server?.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Watched {
  events: Array<{ seq: number; kind: string; message_id: string | null; event_id: string }>;
  cursor: string;
}

const watch = (m: Member, args: Record<string, unknown>) =>
  ok(m, 'events_watch', args, false) as Promise<Watched>;

const note = (m: Member, campaignId: string, content: string) =>
  ok(m, 'message_append', { campaign_id: campaignId, type: 'NOTE', content });

/** Reads to the end of what `m` sees now; returns the cursor there. */
async function caughtUp(m: Member, campaignId: string): Promise<string> {
  const first = await watch(m, { campaign_id: campaignId, wait_seconds: 1, limit: 200 });
  return first.cursor;
}

/** Watches in a background call while `act` runs; how long the watch took and what it returned. */
async function wokenBy(watcher: Member, args: Record<string, unknown>, act: () => Promise<unknown>) {
  const started = performance.now();
  const pending = watch(watcher, { wait_seconds: 30, ...args });
  await sleep(300);
  await act();
  const result = await pending;
  return { result, ms: performance.now() - started };
}

describe('events_watch', () => {
  it('starts at the beginning without a cursor and gives a heartbeat with the same cursor', async () => {
    const c = await newMember(server);
    const p = await newMember(server);
    const campaignId = await campaignWith(c, [p]);
    const first = await watch(p, { campaign_id: campaignId, wait_seconds: 1 });
    expect(first.events.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'CAMPAIGN_CREATED'],
      [2, 'MEMBER_JOINED'],
    ]);
    expect(first.events[0]).toMatchObject({
      event_id: expect.stringMatching(/^evt_/),
      at: expect.any(String),
      actor: { agent_id: c.agentId, role: 'COORDINATOR' },
    });
    const started = performance.now();
    const beat = await watch(p, { campaign_id: campaignId, cursor: first.cursor, wait_seconds: 1 });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
    expect(beat).toEqual({ events: [], cursor: first.cursor });
  });

  it('wakes when another member appends, long before the wait ends', async () => {
    const c = await newMember(server);
    const p = await newMember(server);
    const campaignId = await campaignWith(c, [p]);
    const cursor = await caughtUp(p, campaignId);
    let posted = '';
    const { result, ms } = await wokenBy(p, { campaign_id: campaignId, cursor }, async () => {
      posted = (await note(c, campaignId, 'Fresh sighting on the ridge.')).message_id;
    });
    expect(result.events.map((e) => e.message_id)).toEqual([posted]);
    // Well under the 5-second safety re-read: the NOTIFY woke it.
    expect(ms).toBeLessThan(3_000);
  });

  it('wakes every waiting watcher with what each may see: a direct message reaches only its parties', async () => {
    const c = await newMember(server);
    const p1 = await newMember(server);
    const p2 = await newMember(server);
    const p3 = await newMember(server);
    const campaignId = await campaignWith(c, [p1, p2, p3]);
    const cursors = await Promise.all([p2, p3].map((m) => caughtUp(m, campaignId)));
    // Both wait at once, so one wake-up (and its shared read) serves them together.
    const forP2 = watch(p2, { campaign_id: campaignId, cursor: cursors[0], wait_seconds: 20 });
    const forP3 = watch(p3, { campaign_id: campaignId, cursor: cursors[1], wait_seconds: 3 });
    await sleep(300);
    await ok(p1, 'message_send', {
      campaign_id: campaignId,
      to: p2.agentId,
      type: 'NOTE',
      content: 'Only for you.',
    });
    const [got2, got3] = await Promise.all([forP2, forP3]);
    expect(got2.events.map((e) => e.kind)).toEqual(['MESSAGE_POSTED']);
    // p3 woke too, found nothing it may see, and went on waiting to its heartbeat.
    expect(got3).toEqual({ events: [], cursor: cursors[1] });

    const again = await Promise.all(
      [p2, p3].map((m, i) =>
        wokenBy(m, { campaign_id: campaignId, cursor: i === 0 ? got2.cursor : cursors[1] }, () =>
          i === 0 ? Promise.resolve() : note(c, campaignId, 'Everyone: the plan changed.'),
        ),
      ),
    );
    for (const { result } of again) expect(result.events.map((e) => e.kind)).toEqual(['MESSAGE_POSTED']);
  });

  it('pages by limit and skips no visible event across a reconnect, passing over hidden ones', async () => {
    const c = await newMember(server);
    const p1 = await newMember(server);
    const p2 = await newMember(server);
    const campaignId = await campaignWith(c, [p1, p2]);
    const cursor = await caughtUp(p2, campaignId);
    await p2.client.close();

    const expected: string[] = [];
    for (let i = 0; i < 5; i++) {
      expected.push((await note(c, campaignId, `note ${i}`)).message_id);
      // A direct message p2 may not see, between each visible one.
      await ok(p1, 'message_send', {
        campaign_id: campaignId,
        to: c.agentId,
        type: 'NOTE',
        content: `aside ${i}`,
      });
    }

    const again: Member = { ...p2, client: await connectClient(server.url, p2.key) };
    const seen: Watched['events'] = [];
    let at = cursor;
    for (let round = 0; round < 10; round++) {
      const page = await watch(again, { campaign_id: campaignId, cursor: at, limit: 2, wait_seconds: 1 });
      if (page.events.length === 0) {
        expect(page.cursor).toBe(at);
        break;
      }
      expect(page.events.length).toBeLessThanOrEqual(2);
      seen.push(...page.events);
      at = page.cursor;
    }
    expect(seen.map((e) => e.message_id)).toEqual(expected);
    const seqs = seen.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    await again.client.close();
  });

  it('refuses a tampered, foreign or other-campaign cursor with CURSOR_INVALID', async () => {
    const c = await newMember(server);
    const p = await newMember(server);
    const campaignId = await campaignWith(c, [p]);
    const mine = await caughtUp(p, campaignId);
    const [body, mac] = mine.split('.');
    const forged = `${Buffer.from(JSON.stringify({ seq: 0 })).toString('base64url')}.${mac}`;
    for (const cursor of [forged, `${body}.${mac?.slice(1)}x`, 'not-a-cursor']) {
      expect(
        (await refused(p, 'events_watch', { campaign_id: campaignId, cursor, wait_seconds: 1 }, false)).code,
      ).toBe('CURSOR_INVALID');
    }
    // Another member's cursor, and a cursor of another campaign.
    expect(
      (await refused(c, 'events_watch', { campaign_id: campaignId, cursor: mine, wait_seconds: 1 }, false))
        .code,
    ).toBe('CURSOR_INVALID');
    const other = await campaignWith(p, []);
    expect(
      (await refused(p, 'events_watch', { campaign_id: other, cursor: mine, wait_seconds: 1 }, false)).code,
    ).toBe('CURSOR_INVALID');
    expect(
      (await refused(p, 'events_watch', { campaign_id: campaignId, wait_seconds: 61 }, false)).code,
    ).toBe('VALIDATION_FAILED');
  });

  it('rechecks membership after waiting', async () => {
    const c = await newMember(server);
    const p = await newMember(server);
    const campaignId = await campaignWith(c, [p]);
    const cursor = await caughtUp(p, campaignId);
    const pending = callTool(p.client, 'events_watch', { campaign_id: campaignId, cursor, wait_seconds: 30 });
    await sleep(300);
    await server.database.db
      .update(campaignMembers)
      .set({ status: 'LEFT' })
      .where(and(eq(campaignMembers.campaignId, campaignId), eq(campaignMembers.agentId, p.agentId)));
    await note(c, campaignId, 'after you left');
    const res = await pending;
    expect(res.isError).toBe(true);
    expect(res.body.error.code).toBe('NOT_A_MEMBER');
  });
});

describe('events_watch across replicas and processes', () => {
  it('wakes a watcher on one replica when an agent appends through another', async () => {
    const replica = await startTestServer({ database: server.database, env: { CAIRN_SECRET: SECRET } });
    try {
      const c = await newMember(server);
      const p = await newMember(server);
      const campaignId = await campaignWith(c, [p]);
      const cursor = await caughtUp(p, campaignId);
      const cThere: Member = { ...c, client: await connectClient(replica.url, c.key) };
      let posted = '';
      const { result, ms } = await wokenBy(p, { campaign_id: campaignId, cursor }, async () => {
        posted = (await note(cThere, campaignId, 'Written through the other replica.')).message_id;
      });
      expect(result.events.map((e) => e.message_id)).toEqual([posted]);
      expect(ms).toBeLessThan(3_000);
      // The cursor is good on the other replica too: the watch continues there.
      const pThere: Member = { ...p, client: await connectClient(replica.url, p.key) };
      const beat = await watch(pThere, { campaign_id: campaignId, cursor: result.cursor, wait_seconds: 1 });
      expect(beat).toEqual({ events: [], cursor: result.cursor });
      await cThere.client.close();
      await pThere.client.close();
    } finally {
      await replica.close();
    }
  });

  it('answers a waiting watch with a heartbeat when its server stops', async () => {
    const replica = await startTestServer({ database: server.database, env: { CAIRN_SECRET: SECRET } });
    const c = await newMember(server);
    const campaignId = await campaignWith(c, []);
    const cursor = await caughtUp(c, campaignId);
    const there: Member = { ...c, client: await connectClient(replica.url, c.key) };
    const started = performance.now();
    const pending = watch(there, { campaign_id: campaignId, cursor, wait_seconds: 30 });
    await sleep(300);
    await replica.close();
    expect(await pending).toEqual({ events: [], cursor });
    expect(performance.now() - started).toBeLessThan(3_000);
  });

  it.skipIf(!onPostgres)(
    'wakes watchers across real server processes on PostgreSQL, both ways',
    { timeout: 90_000 },
    async () => {
      const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-ledger-'));
      const port = await freePort();
      const child = await startServe(port, dataDir);
      try {
        const other = `http://127.0.0.1:${port}`;
        const c = await newMember(server);
        const p = await newMember(server);
        const campaignId = await campaignWith(c, [p]);
        const cursor = await caughtUp(p, campaignId);
        const cThere: Member = { ...c, client: await connectClient(other, c.key) };
        // Watching here (process 1), appending there (process 2).
        let posted = '';
        const one = await wokenBy(p, { campaign_id: campaignId, cursor }, async () => {
          posted = (await note(cThere, campaignId, 'From the second process.')).message_id;
        });
        expect(one.result.events.map((e) => e.message_id)).toEqual([posted]);
        expect(one.ms).toBeLessThan(3_000);
        // Watching there with the cursor from here, appending here.
        const pThere: Member = { ...p, client: await connectClient(other, p.key) };
        const two = await wokenBy(
          pThere,
          { campaign_id: campaignId, cursor: one.result.cursor },
          async () => {
            posted = (await note(c, campaignId, 'From the first process.')).message_id;
          },
        );
        expect(two.result.events.map((e) => e.message_id)).toEqual([posted]);
        expect(two.ms).toBeLessThan(3_000);
        await cThere.client.close();
        await pThere.client.close();
      } finally {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
        rmSync(dataDir, { recursive: true, force: true });
      }
    },
  );
});

/** `cairn serve` as its own process on TEST_DATABASE_URL, as in cli.test.ts. */
async function startServe(port: number, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [path.resolve('bin/cairn.js'), 'serve'], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      CAIRN_DATA_DIR: dataDir,
      DATABASE_URL: process.env.TEST_DATABASE_URL,
      CAIRN_SECRET: SECRET,
      PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 45_000;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return child;
    } catch {
      // not listening yet
    }
    await sleep(200);
  }
  child.kill('SIGKILL');
  throw new Error('cairn serve did not come up');
}
