import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { campaignWith, newMember, publishTask } from '../support/campaigns.ts';
import { callTool, connectClient, postToolCall } from '../support/factories.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 38: the database's own faults, produced for real on a database of each test's own (its
 * backends terminated, its connections refused with ALLOW_CONNECTIONS false), against `cairn serve`
 * started the real way, so a crash is a process that exits. PostgreSQL only.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Rig {
  own: OwnDatabase;
  setup: TestServer;
  replica: Replica;
}
const rigs: Rig[] = [];

/** A database of the test's own, a setup server on it, and one replica started as `cairn serve`. */
async function rig(prefix: string, env: Record<string, string> = {}): Promise<Rig> {
  const own = await ownDatabase(prefix, url as string);
  const setup = await startTestServer({ database: own.database, env: { CAIRN_SECRET: secret } });
  const replica = await startReplica(own.url, secret, env);
  const r = { own, setup, replica };
  rigs.push(r);
  return r;
}

afterAll(async () => {
  for (const r of rigs) {
    await r.replica.stop(2_000);
    await r.setup.close();
    await r.own.drop();
  }
});

/** One tools/call as its own HTTP request: the status, and the tool's answer or the refusal. */
async function rawCall(base: string, key: string, name: string, args: Record<string, unknown>) {
  const res = await postToolCall(base, key, name, args);
  const text = await res.text();
  // biome-ignore lint/suspicious/noExplicitAny: the test reads into varied answers
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {}
  return {
    status: res.status,
    text,
    result: body?.result?.structuredContent,
    isError: body?.result?.isError,
  };
}

/** Counts this database's LISTEN connections, by the application_name every listener sets. */
async function listeners(own: OwnDatabase, admin: pg.Client): Promise<number> {
  const name = new URL(own.url).pathname.slice(1);
  const r = await admin.query<{ n: string }>(
    `select count(*) as n from pg_stat_activity where datname = $1 and application_name like 'cairn-listen:%'`,
    [name],
  );
  return Number(r.rows[0]?.n ?? 0);
}

describe.skipIf(!url)('database faults', () => {
  it('stays up through three terminations of every backend under load, answers 503 meanwhile, and loses nothing acknowledged', async () => {
    const { own, setup, replica } = await rig('cairn_term');
    const coordinator = await newMember(setup);
    const workers = await Promise.all(Array.from({ length: 8 }, () => newMember(setup)));
    const campaignId = await campaignWith(coordinator, workers);
    const taskIds: string[] = [];
    for (let i = 0; i < 8; i++) taskIds.push(await publishTask(coordinator, campaignId));

    const acknowledged = new Map<string, string>(); // idempotency key → message_id
    const unavailable: string[] = [];
    const other: string[] = [];
    let stopping = false;
    const note = (r: Awaited<ReturnType<typeof rawCall>>) => {
      if (r.status === 503 || r.result?.error?.code === 'SERVICE_UNAVAILABLE') unavailable.push(r.text);
      // A claim lost to another worker (or already held) is an answer too.
      else if (r.status !== 200 || (r.isError && r.result?.error?.code !== 'TASK_ALREADY_CLAIMED'))
        other.push(r.text.slice(0, 300));
    };
    const work = async (i: number) => {
      const w = workers[i] as (typeof workers)[number];
      for (let n = 0; !stopping; n++) {
        const key = `term-${i}-${n}`;
        const posted = await rawCall(replica.url, w.key, 'message_append', {
          campaign_id: campaignId,
          type: 'NOTE',
          content: key,
          idempotency_key: key,
        }).catch(() => null);
        if (!posted) break; // the replica is gone: the assertions below say so
        note(posted);
        if (posted.result?.message_id) acknowledged.set(key, posted.result.message_id);
        const claimed = await rawCall(replica.url, w.key, 'task_claim', {
          task_id: taskIds[(i + n) % taskIds.length],
          idempotency_key: `${key}-claim`,
        }).catch(() => null);
        if (!claimed) break;
        note(claimed);
      }
    };
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    const name = new URL(own.url).pathname.slice(1);
    const running = workers.map((_, i) => work(i));
    try {
      for (let round = 0; round < 3; round++) {
        await sleep(700);
        await admin.query(
          'select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()',
          [name],
        );
      }
      await sleep(1_500);
    } finally {
      stopping = true;
      await Promise.all(running);
      await admin.end();
    }

    expect(replica.process.exitCode, `the replica exited:\n${replica.output()}`).toBeNull();
    expect(replica.process.signalCode).toBeNull();
    // The replica answers again, on fresh connections.
    const after = await rawCall(replica.url, coordinator.key, 'identity_whoami', {});
    expect(after.status, after.text).toBe(200);
    expect(after.isError, after.text).toBeFalsy();
    expect(other, 'answers that were neither success, a lost claim nor 503').toEqual([]);
    expect(unavailable.length, 'calls cut by a termination were answered 503').toBeGreaterThan(0);
    expect(acknowledged.size).toBeGreaterThan(20);
    const stored = new Set(
      (
        await own.audit<{ id: string }>(
          sql`select id from campaign_messages where campaign_id = ${campaignId}`,
        )
      ).map((r) => r.id),
    );
    expect(
      [...acknowledged.values()].filter((id) => !stored.has(id)),
      'acknowledged but missing',
    ).toEqual([]);
  }, 90_000);

  it('brings its listeners back after connections were refused for seconds, and wakes a waiting watch at once', async () => {
    const metricsToken = randomBytes(16).toString('hex');
    const { own, setup, replica } = await rig('cairn_refuse', { CAIRN_METRICS_TOKEN: metricsToken });
    const listenerMetric = async () => {
      const res = await fetch(`${replica.url}/metrics`, {
        headers: { authorization: `Bearer ${metricsToken}` },
      });
      const text = await res.text();
      return text.split('\n').filter((l) => l.startsWith('cairn_database_listener_up{'));
    };
    const m = await newMember(setup);
    const campaignId = await campaignWith(m, []);
    const client = await connectClient(replica.url, m.key);
    // A first watch starts this replica's ledger listener (beside the notifications' one).
    const start = await callTool(client, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 });
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // This replica's two, and the setup server's notification listener on the same database.
      const before = await listeners(own, admin);
      expect(before).toBe(3);
      await own.takeAway();
      await sleep(1_000);
      const ready = await fetch(`${replica.url}/health/ready`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({ listeners: { cairn_ledger: 'down', cairn_mcp: 'down' } });
      expect((await listenerMetric()).sort()).toEqual([
        'cairn_database_listener_up{channel="cairn_ledger"} 0',
        'cairn_database_listener_up{channel="cairn_mcp"} 0',
      ]);
      await sleep(2_500);
      await own.giveBack();
      const backBy = Date.now() + 10_000;
      while ((await listeners(own, admin)) < before) {
        if (Date.now() > backBy) throw new Error(`listeners not back within 10 s:\n${replica.output()}`);
        await sleep(100);
      }
      // Readiness says so too, once the database answers again.
      for (;;) {
        const r = await fetch(`${replica.url}/health/ready`);
        const body = (await r.json()) as { status: string };
        if (r.status === 200 && body.status === 'ready') break;
        if (Date.now() > backBy + 5_000) throw new Error(`not ready again: ${JSON.stringify(body)}`);
        await sleep(100);
      }
      expect((await listenerMetric()).sort()).toEqual([
        'cairn_database_listener_up{channel="cairn_ledger"} 1',
        'cairn_database_listener_up{channel="cairn_mcp"} 1',
      ]);

      // A watch that waits now is woken by the next event, well before its 5-second re-check.
      const watching = await connectClient(replica.url, m.key);
      const waiting = callTool(watching, 'events_watch', {
        campaign_id: campaignId,
        cursor: start.body.cursor,
        wait_seconds: 30,
      });
      await sleep(600);
      const sentAt = Date.now();
      await callTool(client, 'message_append', {
        campaign_id: campaignId,
        type: 'NOTE',
        content: 'after the outage',
        idempotency_key: `refuse-${randomBytes(4).toString('hex')}`,
      });
      const woken = await waiting;
      const tookMs = Date.now() - sentAt;
      expect(woken.isError, JSON.stringify(woken.body)).toBe(false);
      expect(woken.body.events.map((e: { kind: string }) => e.kind)).toContain('MESSAGE_POSTED');
      expect(tookMs).toBeLessThan(1_000);
    } finally {
      await own.giveBack();
      await admin.end();
    }
  }, 90_000);
});
