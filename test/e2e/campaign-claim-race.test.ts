import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { and, eq, isNull } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignEvents, taskLeases } from '../../src/domains/campaigns/tables.ts';
import { key, type Member, ok } from '../support/campaigns.ts';
import { onPostgres } from '../support/database.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { freePort, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 5 items 4 and 10: task_claim has exactly one winner under any concurrency and across
 * server processes. 50 agents, split over two replicas of one database, claim the same task at
 * once; exactly one wins and 49 get TASK_ALREADY_CLAIMED, for every task, and exactly one lease
 * stays open per task. On PostgreSQL the replicas are two real `cairn serve` processes.
 */

const CLAIMERS = 50;
const TASKS = 4;
const BIN = path.resolve('bin/cairn.js');

const conditions = {
  available_data: 'Public pages.',
  authorized_scope: 'Public pages only.',
  deliverable: 'A summary.',
  reproduction_steps: 'Open the pages.',
  time_budget_minutes: 60,
  stop_conditions: 'A login page.',
  reviewer: 'The coordinator.',
};

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** `count` agents of one owner, made on the provisioning server, connected round-robin to `urls`. */
async function agentsOn(urls: string[], count: number): Promise<Member[]> {
  const first = await createAgent(server.app.services.identity, { mode: 'READ' });
  const made = [first];
  for (let i = 1; i < count; i++) {
    made.push(
      await createAgent(server.app.services.identity, { mode: 'READ', ownerEmail: first.ownerEmail }),
    );
  }
  return Promise.all(
    made.map(async (a, i) => ({ ...a, client: await connectClient(urls[i % urls.length] as string, a.key) })),
  );
}

/** Runs the race on every task and checks its outcome in the shared database. */
async function raceOver(urls: string[]): Promise<void> {
  const agents = await agentsOn(urls, CLAIMERS);
  try {
    const [coord] = agents as [Member];
    const { campaign_id: campaignId } = await ok(coord, 'campaign_create', {
      title: 'Race',
      objective: 'Claim races.',
      allow_agent_publish: false,
      visibility: 'SHARED',
      participation: 'OPEN',
    });
    await Promise.all(agents.slice(1).map((a) => ok(a, 'campaign_join', { campaign_id: campaignId })));

    for (let t = 0; t < TASKS; t++) {
      const { task_id: taskId } = await ok(coord, 'task_publish', {
        campaign_id: campaignId,
        title: `Race ${t}`,
        objective: 'Be first.',
        acceptance: 'Won.',
        conditions,
      });
      const results = await Promise.all(
        agents.map((a) => callTool(a.client, 'task_claim', { task_id: taskId, idempotency_key: key() })),
      );
      const winners = results.filter((r) => !r.isError);
      const codes = results.filter((r) => r.isError).map((r) => r.body.error.code);
      expect(winners, JSON.stringify(codes.filter((c) => c !== 'TASK_ALREADY_CLAIMED'))).toHaveLength(1);
      expect(codes).toEqual(Array(CLAIMERS - 1).fill('TASK_ALREADY_CLAIMED'));

      const open = await server.database.db
        .select()
        .from(taskLeases)
        .where(and(eq(taskLeases.taskId, taskId), isNull(taskLeases.endedAt)));
      expect(open).toHaveLength(1);
      expect(open[0]?.id).toBe(winners[0]?.body.lease.lease_id);
      const claimed = await server.database.db
        .select()
        .from(campaignEvents)
        .where(and(eq(campaignEvents.taskId, taskId), eq(campaignEvents.kind, 'TASK_CLAIMED')));
      expect(claimed).toHaveLength(1);
    }
  } finally {
    await Promise.all(agents.map((a) => a.client.close()));
  }
}

describe('task_claim race', () => {
  it('has one winner among 50 claimers over two in-process replicas of one database', async () => {
    const replica = await startTestServer({ database: server.database });
    try {
      await raceOver([server.url, replica.url]);
    } finally {
      await replica.close();
    }
  }, 180_000);
});

describe.skipIf(!onPostgres)('task_claim race across processes', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];

  async function serve(): Promise<string> {
    const port = await freePort();
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-race-'));
    dirs.push(dataDir);
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CAIRN_DATA_DIR: dataDir,
        DATABASE_URL: process.env.TEST_DATABASE_URL,
        PORT: String(port),
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    children.push(child);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`${url}/health`)).ok) return url;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('cairn serve did not come up');
  }

  afterAll(async () => {
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('has one winner among 50 claimers over two `cairn serve` processes on one PostgreSQL', async () => {
    const urls = await Promise.all([serve(), serve()]);
    await raceOver(urls);
  }, 240_000);
});
