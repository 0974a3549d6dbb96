import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conditions, key, publishTask } from '../support/campaigns.ts';
import { callTool, connectClient, createAgent, type TestAgent } from '../support/factories.ts';
import { type CampaignMailbox, grantedMailbox } from '../support/mail.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 item 7, "open pickup race of 50 takers over two processes": two `cairn serve`
 * processes over one PostgreSQL database (of this file's own). 50 distinct active agents, 25
 * connected to each replica, call public_task_take on the same board and task_ref at once: one
 * wins, the 49 others are refused TASK_ALREADY_CLAIMED without learning who holds it, and both
 * replicas show the task taken. Then the winner releases on replica A and a taker on replica B
 * takes it. Setup (owners, agents, the campaign, its mail evidence) goes through an in-process
 * server on the same data; the board is published and every take goes to the replicas only.
 *
 * What catches a claim that is not single-winner: without the conditional UPDATE's OPEN check,
 * every taker flips the task and only the unique index on open leases stops the others, with
 * a refusal of another shape (the campaign's task id in it) that the checks below refuse.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
let own: OwnDatabase;
let setup: TestServer;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  if (!url) return;
  own = await ownDatabase('cairn_pickup_rep', url, 4);
  setup = await startTestServer({
    database: own.database,
    env: { CAIRN_SECRET: secret, CAIRN_MAIL_DOMAIN: 'mail.cairn.test' },
  });
  [a, b] = (await Promise.all([startReplica(own.url, secret), startReplica(own.url, secret)])) as [
    Replica,
    Replica,
  ];
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(2_000), b?.stop(2_000)]);
  await setup?.close();
  await own?.drop();
});

// biome-ignore lint/suspicious/noExplicitAny: the test reads into arbitrary JSON answers
type Json = Record<string, any>;

const QUOTE = 'Nine golden plovers rested on the summit cairn at dawn';

interface Listed {
  box: CampaignMailbox;
  slug: string;
  taskId: string;
  taskRef: string;
}

/** An agent of a new owner, active, connected to one replica. */
interface Taker extends TestAgent {
  replica: Replica;
  client: Client;
}

async function mustAnswer(client: Client, tool: string, args: Record<string, unknown>): Promise<Json> {
  const r = await callTool(client, tool, args);
  expect(r.isError, `${tool}: ${JSON.stringify(r.body)}`).toBe(false);
  return r.body;
}

/**
 * A campaign (set up in process) with one open-pickup task and a mail the coordinator shared
 * for it as evidence, listed on a board published through replica A's owner API.
 */
async function listedTask(): Promise<Listed> {
  const box = await grantedMailbox(setup);
  const taskId = await publishTask(box.coordinator, box.campaignId, {
    conditions: { ...conditions(), participation: 'OPEN', publish_contract: true },
  });
  const raw = Buffer.from(
    [
      'From: Warden <warden@example.org>',
      `To: ${box.address}`,
      'Subject: Summit count',
      `Message-ID: <${key()}@example.org>`,
      'Content-Type: text/plain; charset=utf-8',
      '',
      `${QUOTE}, the warden wrote.`,
      '',
    ].join('\r\n'),
  );
  const [delivered] = await setup.app.services.mail.deliver({
    via: 'SMTP',
    recipients: [box.address],
    envelopeFrom: 'warden@example.org',
    raw,
    processed: null,
    size: raw.length,
    providerDeliveryId: null,
    remote: '127.0.0.1',
  });
  await mustAnswer(box.coordinator.client, 'evidence_submit', {
    campaign_id: box.campaignId,
    mail_id: delivered?.mail_id,
    task_id: taskId,
    idempotency_key: key(),
  });
  const slug = `race-${randomBytes(5).toString('hex')}`;
  const res = await fetch(`${a.url}/v1/boards`, {
    method: 'POST',
    headers: { authorization: `Bearer ${box.token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      slug,
      title: 'Summit counts',
      purpose: 'WORK',
      campaign_id: box.campaignId,
      task_ids: [taskId],
    }),
  });
  const made = (await res.json()) as Json;
  expect(res.status, JSON.stringify(made)).toBe(201);
  return { box, slug, taskId, taskRef: made.tasks[0].task_ref as string };
}

/** The public board as one replica shows it to anyone. */
async function publicBoard(replica: Replica, slug: string): Promise<Json> {
  const res = await fetch(`${replica.url}/v1/public/boards/${slug}`);
  const body = (await res.json()) as Json;
  expect(res.status, JSON.stringify(body)).toBe(200);
  return body;
}

async function expectBoardOnBoth(l: Listed, status: 'CLAIMED' | 'OPEN', available: boolean) {
  for (const replica of [a, b]) {
    const board = await publicBoard(replica, l.slug);
    expect(board, replica.url).toMatchObject({
      tasks_listed: 1,
      tasks_available: available ? 1 : 0,
      tasks: [{ task_ref: l.taskRef, status, available }],
    });
  }
}

/** The task as the coordinator reads it with task_get on `replica`: status and live lease. */
async function taskAsCoordinator(l: Listed, replica: Replica): Promise<Json> {
  const client = await connectClient(replica.url, l.box.coordinator.key);
  try {
    return await mustAnswer(client, 'task_get', { task_id: l.taskId });
  } finally {
    await client.close();
  }
}

/** This task's TASK_CLAIMED events on the campaign's ledger, as the coordinator watches it. */
async function claimsOnLedger(l: Listed, replica: Replica): Promise<Json[]> {
  const client = await connectClient(replica.url, l.box.coordinator.key);
  try {
    const watched = await mustAnswer(client, 'events_watch', {
      campaign_id: l.box.campaignId,
      wait_seconds: 1,
      limit: 200,
    });
    return (watched.events as Json[]).filter(
      (e) => e.kind === 'TASK_CLAIMED' && e.payload?.task_id === l.taskId,
    );
  } finally {
    await client.close();
  }
}

const takeArgs = (l: Listed) => ({ board: l.slug, task_ref: l.taskRef, idempotency_key: key() });

describe.skipIf(!url)('open pickup raced on two replicas', () => {
  const clients: Client[] = [];
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  });

  it('50 takers on two replicas: one wins, 49 are refused without its name; then a release on A lets B take it', async () => {
    const l = await listedTask();
    await expectBoardOnBoth(l, 'OPEN', true);

    // 50 distinct owners' active agents: the first 25 on replica A, the others on B.
    const takers: Taker[] = await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const agent = await createAgent(setup.app.services.identity, { mode: 'READ' });
        const replica = i < 25 ? a : b;
        const client = await connectClient(replica.url, agent.key);
        clients.push(client);
        return { ...agent, replica, client };
      }),
    );
    expect(new Set(takers.map((t) => t.agentId)).size).toBe(50);

    const results = await Promise.all(takers.map((t) => callTool(t.client, 'public_task_take', takeArgs(l))));
    const winners = results.flatMap((r, i) => (r.isError ? [] : [i]));
    const codes = results.map((r) => (r.isError ? r.body.error?.code : 'TAKEN'));
    expect(winners, JSON.stringify(codes)).toHaveLength(1);
    const wi = winners[0] as number;
    const winner = takers[wi] as Taker;
    const won = (results[wi] as { body: Json }).body;
    expect(won).toMatchObject({
      public_entry_id: expect.stringMatching(/^pen_/),
      board: l.slug,
      task_ref: l.taskRef,
      lease: { lease_id: expect.stringMatching(/^lse_/), execution_deadline: expect.any(String) },
    });

    const refusals = results.filter((r) => r.isError).map((r) => r.body);
    expect(refusals.map((r) => r.error?.code)).toEqual(Array(49).fill('TASK_ALREADY_CLAIMED'));
    for (const r of refusals) {
      // Only that someone holds it: the board and ref asked about, no holder, no campaign ids.
      expect(r.error.details).toEqual({ board: l.slug, task_ref: l.taskRef });
      const text = JSON.stringify(r);
      expect(text).not.toContain(winner.agentId);
      expect(text).not.toContain(l.taskId);
      expect(text).not.toContain(l.box.campaignId);
    }

    // Both replicas show the task taken and not available.
    await expectBoardOnBoth(l, 'CLAIMED', false);
    // One live lease, the winner's, as the coordinator sees it through either replica.
    for (const replica of [a, b]) {
      const task = await taskAsCoordinator(l, replica);
      expect(task, replica.url).toMatchObject({
        status: 'CLAIMED',
        lease: {
          held: true,
          held_by_you: false,
          agent_id: winner.agentId,
          execution_deadline: won.lease.execution_deadline,
        },
      });
    }
    // The ledger has exactly one claim of this task: the winner's entry.
    const claims = await claimsOnLedger(l, b);
    expect(claims).toHaveLength(1);
    expect(claims[0]?.payload).toMatchObject({
      via: 'PUBLIC_ENTRY',
      public_entry_id: won.public_entry_id,
    });

    // Round two: the winner releases on replica A (reconnected there if it raced on B)...
    let winnerOnA = winner.client;
    if (winner.replica !== a) {
      winnerOnA = await connectClient(a.url, winner.key);
      clients.push(winnerOnA);
    }
    const released = await mustAnswer(winnerOnA, 'public_task_work', {
      public_entry_id: won.public_entry_id,
      action: 'release',
      arguments: { reason: 'OUT_OF_SCOPE', note: 'Handing it on.' },
      idempotency_key: key(),
    });
    expect(released).toMatchObject({ status: 'OPEN', entry_ended: true });
    await expectBoardOnBoth(l, 'OPEN', true);
    expect((await taskAsCoordinator(l, b)).lease).toBeNull();

    // ...and a taker that lost on replica B takes it there.
    const second = takers.find((t, i) => i !== wi && t.replica === b) as Taker;
    const retaken = await mustAnswer(second.client, 'public_task_take', takeArgs(l));
    expect(retaken.public_entry_id).toMatch(/^pen_/);
    expect(retaken.public_entry_id).not.toBe(won.public_entry_id);
    await expectBoardOnBoth(l, 'CLAIMED', false);
    const task = await taskAsCoordinator(l, a);
    expect(task).toMatchObject({
      status: 'CLAIMED',
      lease: { held: true, agent_id: second.agentId, execution_deadline: retaken.lease.execution_deadline },
    });
    expect((await claimsOnLedger(l, a)).map((e) => e.payload.public_entry_id)).toEqual([
      won.public_entry_id,
      retaken.public_entry_id,
    ]);
    // The first entry is over, on either replica; the old winner cannot take it back.
    const ended = await callTool(winner.client, 'public_task_work', {
      public_entry_id: won.public_entry_id,
      action: 'task_evidence',
      arguments: {},
      idempotency_key: key(),
    });
    expect(ended.body.error).toMatchObject({ code: 'PUBLIC_ENTRY_ENDED', details: { reason: 'RELEASED' } });
    const again = await callTool(winnerOnA, 'public_task_take', takeArgs(l));
    expect(again.body.error?.code).toBe('TASK_ALREADY_CLAIMED');
    expect(JSON.stringify(again.body)).not.toContain(second.agentId);
  }, 180_000);
});
