import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, type Member, newMember, publishTask } from '../support/campaigns.ts';
import { connectClient } from '../support/factories.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 14 item 6, the kill test that stays: two `cairn serve` processes over one PostgreSQL
 * database (of this file's own); clients append messages, contest task claims and watch the
 * ledger on both; one replica is killed with SIGKILL mid-load. A client whose call was cut
 * retries the same call, with the same idempotency_key, on the survivor. Afterwards: nothing
 * acknowledged is missing, no key made two records, no task had two winners, and the watcher,
 * reconnected to the survivor with its cursor, skipped no event.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
let own: OwnDatabase;
let setup: TestServer;
let replicas: Replica[] = [];

beforeAll(async () => {
  if (!url) return;
  own = await ownDatabase('cairn_kill', url, 4);
  // Setup (owners, agents, keys, the campaign) goes through an in-process server on the same data.
  setup = await startTestServer({ database: own.database, env: { CAIRN_SECRET: secret } });
  replicas = await Promise.all([startReplica(own.url, secret), startReplica(own.url, secret)]);
}, 120_000);
afterAll(async () => {
  await Promise.all(replicas.map((r) => r.stop(2_000)));
  await setup?.close();
  await own?.drop();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let failovers = 0;

/** An agent's connection that moves to the survivor when its replica dies. */
class Conn {
  client!: Client;
  constructor(
    readonly m: Member,
    private replica: Replica,
  ) {}
  async open() {
    this.client = await connectClient(this.replica.url, this.m.key);
  }
  /** Calls a tool; a cut connection is retried, the same call, on the surviving replica. */
  async call(tool: string, args: Record<string, unknown>) {
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await this.client.callTool({ name: tool, arguments: args });
        // biome-ignore lint/suspicious/noExplicitAny: the test reads into varied answers
        return r.structuredContent as Record<string, any>;
      } catch (err) {
        if (attempt >= 5) throw err;
        failovers++;
        this.replica = replicas.find(
          (r) => r.process.exitCode === null && r.process.signalCode === null,
        ) as Replica;
        await this.open().catch(() => {});
      }
    }
  }
}

describe.skipIf(!url)('a replica killed under load', () => {
  it('loses nothing acknowledged, duplicates nothing, never has two winners, skips no event', async () => {
    const [a, b] = replicas as [Replica, Replica];
    const coordinator = await newMember(setup);
    const workers = await Promise.all(Array.from({ length: 6 }, () => newMember(setup)));
    const campaignId = await campaignWith(coordinator, workers);
    const taskIds: string[] = [];
    for (let i = 0; i < 12; i++) taskIds.push(await publishTask(coordinator, campaignId));

    const conns = workers.map((w, i) => new Conn(w, i % 2 === 0 ? a : b));
    await Promise.all(conns.map((c) => c.open()));
    const watcher = new Conn(coordinator, a);
    await watcher.open();

    const acknowledged = new Map<string, string>(); // idempotency key → message_id
    const winners = new Map<string, Set<string>>(); // task → agents told they won
    let stopping = false;

    const work = async (c: Conn, i: number) => {
      for (let n = 0; !stopping; n++) {
        const key = `kill-${i}-${n}`;
        const posted = await c.call('message_append', {
          campaign_id: campaignId,
          type: 'NOTE',
          content: `note ${key}`,
          idempotency_key: key,
        });
        if (posted?.message_id) acknowledged.set(key, posted.message_id);
        const task = taskIds[(i + n) % taskIds.length] as string;
        const claimed = await c.call('task_claim', { task_id: task, idempotency_key: `${key}-claim` });
        if (claimed?.lease) {
          const set = winners.get(task) ?? new Set();
          set.add(c.m.agentId);
          winners.set(task, set);
        }
      }
    };
    const seen: number[] = [];
    let cursor: string | undefined;
    const watch = async () => {
      while (!stopping) {
        const r = await watcher.call('events_watch', {
          campaign_id: campaignId,
          wait_seconds: 1,
          ...(cursor ? { cursor } : {}),
        });
        for (const e of r.events ?? []) seen.push(e.seq);
        cursor = r.cursor ?? cursor;
      }
    };

    const running = [...conns.map((c, i) => work(c, i)), watch()];
    await sleep(1_500);
    a.process.kill('SIGKILL');
    await sleep(2_500);
    stopping = true;
    await Promise.all(running);
    // The watcher catches up on the survivor from its last cursor.
    for (;;) {
      const r = await watcher.call('events_watch', { campaign_id: campaignId, wait_seconds: 1, cursor });
      if ((r.events ?? []).length === 0) break;
      for (const e of r.events) seen.push(e.seq);
      cursor = r.cursor;
    }

    expect(a.process.signalCode).toBe('SIGKILL');
    // Calls really were cut and carried over to the survivor, at least the killed replica's half.
    expect(failovers).toBeGreaterThanOrEqual(4);
    expect(acknowledged.size).toBeGreaterThan(20);
    // The audit reads this file's own database through the setup server's pool.
    const rows = await own.audit<{ id: string; content: string }>(
      sql`select id, content from campaign_messages where campaign_id = ${campaignId}`,
    );
    const ids = new Set(rows.map((r) => r.id));
    const missing = [...acknowledged.values()].filter((id) => !ids.has(id));
    expect(missing, 'acknowledged but missing').toEqual([]);
    const perKey = new Map<string, number>();
    for (const r of rows) perKey.set(r.content, (perKey.get(r.content) ?? 0) + 1);
    expect(
      [...perKey].filter(([, n]) => n > 1),
      'records per idempotency key',
    ).toEqual([]);

    expect(
      [...winners].filter(([, set]) => set.size > 1),
      'tasks with two winners',
    ).toEqual([]);
    const leases = await own.audit<{ task_id: string }>(
      sql`select task_id from task_leases where campaign_id = ${campaignId} group by task_id having count(*) > 1`,
    );
    expect(leases, 'tasks leased twice').toEqual([]);

    const ledger = await own.audit<{ seq: string | number }>(
      sql`select seq from campaign_events where campaign_id = ${campaignId} order by seq`,
    );
    const all = ledger.map((r) => Number(r.seq));
    const fromWatchStart = all.filter((s) => s >= (seen[0] ?? 0));
    expect(
      [...new Set(seen)].sort((x, y) => x - y),
      'events seen by the watcher',
    ).toEqual(fromWatchStart);
  }, 120_000);
});
