import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TABLES } from '../domains/catalog.ts';
import { type ListenerChange, openDatabase } from './database.ts';

/**
 * Issue 14 item 1: one LISTEN connection per channel, whatever happens to it. Only this test's
 * own listener backend is terminated (found by its application_name, on a channel of its own),
 * so tests running beside it on the shared server are not disturbed.
 */

const url = process.env.TEST_DATABASE_URL;
const channel = `test_listen_${randomBytes(4).toString('hex')}`;
let admin: pg.Client;

beforeAll(async () => {
  if (!url) return;
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
});
afterAll(async () => {
  await admin?.end();
});

async function listenerPids(): Promise<number[]> {
  const r = await admin.query<{ pid: number }>(
    // The backend's last statement was its LISTEN (pg_stat_activity.query), whatever names it.
    `select pid from pg_stat_activity where query = $1 and datname = current_database()`,
    [`LISTEN "${channel}"`],
  );
  return r.rows.map((row) => row.pid);
}

async function until<T>(what: string, probe: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const v = await probe();
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe.skipIf(!url)('LISTEN on PostgreSQL', () => {
  it('keeps exactly one connection through three lost backends, and hears each NOTIFY once', async () => {
    const heard: string[] = [];
    const changes: ListenerChange[] = [];
    const database = await openDatabase({
      tables: TABLES,
      databaseUrl: url,
      migrate: false,
      poolSize: 1,
      onListener: (c) => changes.push(c),
    });
    const stop = await database.listen(channel, (p) => heard.push(p));
    try {
      let [pid] = await until('the listener', listenerPids, (p) => p.length === 1);
      for (let outage = 1; outage <= 3; outage++) {
        await admin.query('select pg_terminate_backend($1)', [pid]);
        const pids = await until('a new listener', listenerPids, (p) => p.length === 1 && p[0] !== pid);
        pid = pids[0];
        // Let any duplicate reconnect chain show itself before counting again.
        await new Promise((r) => setTimeout(r, 1_500));
        expect(await listenerPids(), `after outage ${outage}`).toHaveLength(1);
        await admin.query('select pg_notify($1, $2)', [channel, `after-${outage}`]);
        await until(
          'the notification',
          async () => heard.length,
          (n) => n >= outage,
        );
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(heard).toEqual(['after-1', 'after-2', 'after-3']);
      // Each loss was told, and each return, with how long the channel was down.
      expect(changes.filter((c) => c.event === 'lost')).toHaveLength(3);
      const back = changes.filter((c) => c.event === 'back');
      expect(back).toHaveLength(3);
      for (const c of back) expect(c).toMatchObject({ channel, downMs: expect.any(Number) });
      expect(database.listeners()).toEqual([{ channel, up: true, downSince: null }]);
    } finally {
      await stop();
      await database.close();
    }
    await until('no listener after stop', listenerPids, (p) => p.length === 0);
  });
});
