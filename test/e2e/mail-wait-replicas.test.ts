import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { key } from '../support/campaigns.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { grantedMailbox, smtpSender } from '../support/mail.ts';
import { type OwnDatabase, ownDatabase } from '../support/own-database.ts';
import { type Replica, startReplica } from '../support/replicas.ts';
import { freePort, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 18 item 5, "wait woken from another process on PostgreSQL": two `cairn serve` processes
 * over one PostgreSQL database (of this file's own). An agent waits with campaign_mail_wait on
 * replica A; the mail arrives over SMTP at replica B, the only one with the built-in receiver.
 * A hears of it only through B's transactional `NOTIFY cairn_mail`. Without that NOTIFY A would
 * still find the mail, but only at its own re-read five seconds into the wait, which the timing
 * below refuses. Setup (owners, agents, the campaign and its grant) goes through an in-process
 * server on the same data.
 */

const url = process.env.TEST_DATABASE_URL;
const secret = randomBytes(32).toString('hex');
let own: OwnDatabase;
let setup: TestServer;
let a: Replica;
let b: Replica;
let smtpPort: number;

beforeAll(async () => {
  if (!url) return;
  own = await ownDatabase('cairn_mail_wait', url, 4);
  setup = await startTestServer({
    database: own.database,
    env: { CAIRN_SECRET: secret, CAIRN_MAIL_DOMAIN: 'mail.cairn.test' },
  });
  smtpPort = await freePort();
  // A replica takes its settings from the environment: only B gets the SMTP receiver.
  vi.stubEnv('CAIRN_SMTP_PORT', undefined);
  a = await startReplica(own.url, secret);
  vi.stubEnv('CAIRN_SMTP_PORT', String(smtpPort));
  try {
    b = await startReplica(own.url, secret);
  } finally {
    vi.unstubAllEnvs();
  }
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(2_000), b?.stop(2_000)]);
  await setup?.close();
  await own?.drop();
});

// biome-ignore lint/suspicious/noExplicitAny: the test reads into arbitrary JSON answers
type Json = Record<string, any>;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface TimedCall {
  startedAt: number;
  /** 0 until the answer has come. */
  answeredAt: number;
  answer: Promise<{ isError: boolean; body: Json }>;
}

/** Starts a tool call and notes when its answer came (and whether it has yet). */
function timed(client: Client, tool: string, args: Record<string, unknown>): TimedCall {
  const call: TimedCall = {
    startedAt: Date.now(),
    answeredAt: 0,
    answer: Promise.resolve({ isError: true, body: {} }),
  };
  call.answer = callTool(client, tool, args).then((r) => {
    call.answeredAt = Date.now();
    return r;
  });
  return call;
}

/** One mail over SMTP to replica B's receiver. */
async function sendToB(to: string, subject: string) {
  const sent = await smtpSender(smtpPort).sendMail({
    from: 'Alice <alice@example.org>',
    to,
    subject,
    text: `${subject}: golden plovers by the cairn.`,
    messageId: `<${key()}@example.org>`,
  });
  expect(sent.accepted, `${sent.response}\n${b.output()}`).toEqual([to]);
}

async function mustAnswer(client: Client, tool: string, args: Record<string, unknown>): Promise<Json> {
  const r = await callTool(client, tool, args);
  expect(r.isError, `${tool}: ${JSON.stringify(r.body)}`).toBe(false);
  return r.body;
}

const subjects = (answer: Json) => answer.mails.map((m: { subject: string }) => m.subject);

/** Where the owner of record revokes the coordinator's grant: on replica B, over the owner API. */
async function revokeOnB(token: string, campaignId: string, agentId: string) {
  const res = await fetch(`${b.url}/v1/campaigns/${campaignId}/mail/grants/${agentId}/revoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe.skipIf(!url)('campaign_mail_wait across replicas', () => {
  it('a wait on A is woken by mail B receives, at once, with a cursor that goes on from it', async () => {
    const box = await grantedMailbox(setup);
    const { campaignId, address } = box;
    const onA = await connectClient(a.url, box.coordinator.key);
    const onB = await connectClient(b.url, box.coordinator.key);

    // Mail already there is not news. (It also warms B's parser pool, so the timed mail below
    // is not slowed by a cold start.)
    await sendToB(address, 'Before the wait');
    const idle = await mustAnswer(onA, 'campaign_mail_wait', { campaign_id: campaignId, timeout_seconds: 1 });
    expect(idle).toMatchObject({ mails: [], timed_out: true });

    const wait = timed(onA, 'campaign_mail_wait', {
      campaign_id: campaignId,
      after_cursor: idle.cursor,
      timeout_seconds: 20,
    });
    // Let A park the wait (its first read found nothing), well inside its five-second re-read.
    await sleep(1_000);
    expect(wait.answeredAt, 'the wait answered before any mail came').toBe(0);
    const sentAt = Date.now();
    await sendToB(address, 'Fresh from B');
    const woken = await wait.answer;
    expect(woken.isError, JSON.stringify(woken.body)).toBe(false);
    expect(woken.body).toMatchObject({ campaign_id: campaignId, timed_out: false });
    expect(subjects(woken.body)).toEqual(['Fresh from B']);
    expect(woken.body.mails[0]).toMatchObject({ trust_label: 'UNTRUSTED_EMAIL', from: expect.any(String) });
    // Woken by B's NOTIFY: well before the 20 s timeout, and before A's own re-read at 5 s would
    // have found the mail.
    const latency = wait.answeredAt - sentAt;
    const held = wait.answeredAt - wait.startedAt;
    expect(held, `answered ${latency} ms after the mail was sent`).toBeLessThan(4_500);
    expect(latency).toBeLessThan(3_000);

    // The mail is whole on A.
    const got = await mustAnswer(onA, 'campaign_mail_get', {
      campaign_id: campaignId,
      mail_id: woken.body.mails[0].mail_id,
    });
    expect(got.window.text).toContain('Fresh from B: golden plovers by the cairn.');

    // The cursor goes on from that mail: nothing new yet (the same cursor back), then only the next.
    const quiet = await mustAnswer(onA, 'campaign_mail_wait', {
      campaign_id: campaignId,
      after_cursor: woken.body.cursor,
      timeout_seconds: 1,
    });
    expect(quiet).toMatchObject({ mails: [], timed_out: true, cursor: woken.body.cursor });
    await sendToB(address, 'The next one');
    const next = await mustAnswer(onA, 'campaign_mail_wait', {
      campaign_id: campaignId,
      after_cursor: woken.body.cursor,
      timeout_seconds: 20,
    });
    expect(subjects(next)).toEqual(['The next one']);
    // A cursor signed by A is as good on B (one secret, one database).
    const onBToo = await mustAnswer(onB, 'campaign_mail_wait', {
      campaign_id: campaignId,
      after_cursor: woken.body.cursor,
      timeout_seconds: 1,
    });
    expect(subjects(onBToo)).toEqual(['The next one']);
    expect(onBToo.cursor).toBe(next.cursor);
    await Promise.all([onA.close(), onB.close()]);
  }, 60_000);

  it('a grant revoked on B while A waits: the mail that ends the wait is refused, not shown', async () => {
    const box = await grantedMailbox(setup);
    const { campaignId, address, coordinator } = box;
    const onA = await connectClient(a.url, coordinator.key);
    const listed = await mustAnswer(onA, 'campaign_mail_list', { campaign_id: campaignId });
    expect(listed.mails).toEqual([]);

    const wait = timed(onA, 'campaign_mail_wait', {
      campaign_id: campaignId,
      after_cursor: listed.wait_cursor,
      timeout_seconds: 20,
    });
    await sleep(1_000);
    const revoked = await revokeOnB(box.token, campaignId, coordinator.agentId);
    expect(revoked, JSON.stringify(revoked.body)).toMatchObject({ status: 200, body: { status: 'REVOKED' } });
    // Revoking does not end a wait by itself: the recheck comes when the wait does.
    await sleep(500);
    expect(wait.answeredAt, 'the wait answered before any mail came').toBe(0);

    const sentAt = Date.now();
    await sendToB(address, 'After the revocation');
    const answer = await wait.answer;
    expect(answer.isError, `the revoked wait answered: ${JSON.stringify(answer.body)}`).toBe(true);
    expect(answer.body.error).toMatchObject({
      code: 'MAIL_ACCESS_REQUIRED',
      details: { campaign_id: campaignId, access_status: 'REVOKED' },
    });
    expect(JSON.stringify(answer.body)).not.toContain('After the revocation');
    // Ended by the mail, well before the 20 s timeout.
    expect(wait.answeredAt - sentAt).toBeGreaterThanOrEqual(0);
    expect(wait.answeredAt - wait.startedAt).toBeLessThan(10_000);

    // Revoking stops reading, not receiving: the owner sees the mail stored (through B).
    const view = await fetch(`${b.url}/v1/campaigns/${campaignId}/mail`, {
      headers: { authorization: `Bearer ${box.token}` },
    }).then((r) => r.json() as Promise<Json>);
    expect(view).toMatchObject({ usage: { messages: 1 } });
    expect(view.attempts[0]).toMatchObject({ via: 'SMTP', outcome: 'ACCEPTED' });
    // And a later wait is refused at once, before waiting.
    const again = await callTool(onA, 'campaign_mail_wait', { campaign_id: campaignId, timeout_seconds: 20 });
    expect(again.body.error).toMatchObject({
      code: 'MAIL_ACCESS_REQUIRED',
      details: { access_status: 'REVOKED' },
    });
    await onA.close();
  }, 60_000);
});
