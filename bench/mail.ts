import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connect, key, percentile, type RawSession } from './campaign-setup.ts';
import {
  type Child,
  freePort,
  makeTempDir,
  removeTempDir,
  serveEnv,
  startNode,
  stop,
  waitForHealth,
} from './children.ts';
import { type HeldCall, holdAndRelease } from './held-calls.ts';
import {
  eachLimited,
  type MailIdentities,
  message,
  type Outgoing,
  ownerApi,
  provisionMailIdentities,
  type Sent,
  SmtpSender,
  waitForSmtp,
} from './mail-setup.ts';

/**
 * `npm run bench -- mail` (issue 18 item 7), against one `cairn serve` with its built-in SMTP
 * receiver (CAIRN_SMTP_PORT on loopback), on the embedded database or on DATABASE_URL:
 * (a) 2,000 deliveries over SMTP from 20 client connections held open (100 messages each, back
 *     to back) from 4 loopback source addresses (the receiver takes 10 connections per address),
 *     spread over 4 campaign mailboxes (500 each: a mailbox takes 1,000 by default, and there is
 *     no setting to raise it), 5 connections per mailbox at once: deliveries/s;
 * (b) 200 campaign_mail_wait calls (200 agents granted by the owner) waiting on a fifth
 *     campaign's mailbox, then one message sent to it over SMTP: the time from the start of that
 *     SMTP transaction to each waiter's answer, p50, p95 and max.
 * Against (a), in the same run, the same 2,000 messages (same bytes but the To header) from the
 * same 20 connections to a bare smtp-server that parses each with mailparser and discards it
 * (bench/mail-baseline.ts). Both get the same 20-message warm-up first. At the end the owner API
 * must show every mailbox holding what was sent, and no delivery may have been refused.
 * Last line: mail_ratio=<cairn deliveries/s ÷ baseline deliveries/s>.
 */

const DELIVERIES = 2_000;
const CONNECTIONS = 20;
const MAILBOXES = 4;
/** Connections per sending address: Cairn's receiver takes at most 10 from one address. */
const PER_SOURCE = 5;
const WAITERS = 200;
/** Threads holding the waiting calls, so answer parsing does not queue on one event loop. */
const WAIT_THREADS = 4;
/** How long the waiting calls get to arrive and start waiting before the mail is sent. */
const SETTLE_MS = 5_000;

interface Deliveries {
  seconds: number;
  sent: Sent[];
  refused: Array<Extract<Sent, { ok: false }> & { n: number }>;
}

/**
 * Opens CONNECTIONS connections, warms them up with one message each (not measured), then sends
 * `measured` with connection c taking messages c, c + CONNECTIONS, …, all connections at once.
 */
async function deliver(port: number, warmUp: Outgoing[], measured: Outgoing[]): Promise<Deliveries> {
  // Four sending servers (127.0.0.10-13) of five connections each.
  const senders = Array.from(
    { length: CONNECTIONS },
    (_, c) => new SmtpSender(port, `127.0.0.${10 + Math.floor(c / PER_SOURCE)}`),
  );
  try {
    await Promise.all(senders.map((s) => s.open()));
    const warm = await Promise.all(senders.map((s, c) => s.send(warmUp[c] as Outgoing)));
    const refused: Deliveries['refused'] = [];
    warm.forEach((w, c) => {
      if (!w.ok) refused.push({ ...w, n: -1 - c });
    });
    const sent: Sent[] = new Array(measured.length);
    const started = performance.now();
    await Promise.all(
      senders.map(async (s, c) => {
        for (let n = c; n < measured.length; n += CONNECTIONS) {
          sent[n] = await s.send(measured[n] as Outgoing);
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    sent.forEach((s, n) => {
      if (!s.ok) refused.push({ ...s, n });
    });
    return { seconds, sent, refused };
  } finally {
    for (const s of senders) s.close();
  }
}

function report(name: string, d: Deliveries): number {
  const rate = d.sent.length / d.seconds;
  const ms = d.sent.map((s) => s.ms);
  const codes = new Map<string, number>();
  for (const r of d.refused)
    codes.set(String(r.code ?? 'error'), (codes.get(String(r.code ?? 'error')) ?? 0) + 1);
  const refusals = d.refused.length
    ? `; REFUSED ${d.refused.length} (${[...codes].map(([c, k]) => `${c}×${k}`).join(', ')}; first: ${d.refused[0]?.response.slice(0, 200)})`
    : '; refused 0';
  process.stdout.write(
    `${name.padEnd(9)} ${d.sent.length} deliveries in ${d.seconds.toFixed(2)} s = ${rate.toFixed(1)} deliveries/s; per message p50 ${percentile(ms, 50).toFixed(1)} ms p99 ${percentile(ms, 99).toFixed(1)} ms${refusals}\n`,
  );
  return rate;
}

type Waiter = Client & { raw: RawSession };

/** Holds `calls`, lets them settle, sends `mail`, and times every answer from the send. */
async function wakeLatencies(
  calls: HeldCall[],
  sender: SmtpSender,
  mail: Outgoing,
): Promise<{ latencies: number[]; mails: number[]; sent: Sent }> {
  const { answers, released } = await holdAndRelease(
    calls,
    { threads: WAIT_THREADS, settleMs: SETTLE_MS, list: 'mails' },
    () => sender.send(mail),
  );
  return { latencies: answers.map((a) => a.afterMs), mails: answers.map((a) => a.count), sent: released };
}

async function cairnRun(
  ids: MailIdentities,
  where: { databaseUrl?: string | undefined; dataDir: string },
  runId: string,
) {
  const port = await freePort();
  const smtpPort = await freePort();
  const env = serveEnv({
    port,
    dataDir: where.dataDir,
    databaseUrl: where.databaseUrl,
    extra: {
      CAIRN_MAIL_DOMAIN: 'mail.bench.test',
      CAIRN_SMTP_PORT: String(smtpPort),
      CAIRN_SMTP_HOST: '127.0.0.1',
    },
  });
  const child: Child = startNode('cairn serve', ['bin/cairn.js', 'serve'], env);
  const baseUrl = `http://127.0.0.1:${port}`;
  const clients: Client[] = [];
  try {
    await waitForHealth(child, baseUrl);
    await waitForSmtp(child, smtpPort);
    const coordinator = await connect(baseUrl, ids.coordinator.key);
    clients.push(coordinator);
    const campaign = async (title: string) => {
      const created = await call(coordinator, 'campaign_create', {
        title,
        objective: 'Receive field reports by mail.',
        allow_agent_publish: false,
        visibility: 'SHARED',
        participation: 'OPEN',
        idempotency_key: key(),
      });
      const id = created.campaign_id as string;
      const { address } = await call(coordinator, 'campaign_mail_address', { campaign_id: id });
      return { id, address: address as string };
    };
    const inboxes: Array<{ id: string; address: string }> = [];
    for (let i = 0; i < MAILBOXES; i++) inboxes.push(await campaign(`Mail bench inbox ${i}`));
    const warmBox = await campaign('Mail bench warm-up');
    const wakeBox = await campaign('Mail bench wake-up');

    // The waiters: members of the wake-up campaign, each granted by the owner, each with its cursor.
    const setupStarted = performance.now();
    const waiters: Waiter[] = new Array(WAITERS);
    const cursors: string[] = new Array(WAITERS);
    await eachLimited(ids.waiters, 10, async (id, i) => {
      const w = await connect(baseUrl, id.key);
      waiters[i] = w;
      clients.push(w);
      await call(w, 'campaign_join', { campaign_id: wakeBox.id, idempotency_key: key() });
      const asked = await call(w, 'campaign_mail_request_access', {
        campaign_id: wakeBox.id,
        reason: 'Reading field reports for the benchmark.',
        idempotency_key: key(),
      });
      await ownerApi(
        baseUrl,
        ids.ownerToken,
        'POST',
        `/v1/campaigns/${wakeBox.id}/mail/access-requests/${asked.request_id}/decision`,
        { decision: 'APPROVE' },
      );
      const listed = await call(w, 'campaign_mail_list', { campaign_id: wakeBox.id, limit: 1 });
      cursors[i] = listed.wait_cursor as string;
    });
    process.stdout.write(
      `mail: ${MAILBOXES + 2} campaigns with mailboxes, ${WAITERS} readers joined and granted, in ${((performance.now() - setupStarted) / 1000).toFixed(1)} s\n`,
    );

    const warmUp = Array.from({ length: CONNECTIONS }, (_, c) =>
      message(`${runId}-warm`, c, warmBox.address),
    );
    const measured = Array.from({ length: DELIVERIES }, (_, n) =>
      message(runId, n, (inboxes[n % MAILBOXES] as { address: string }).address),
    );
    const deliveries = await deliver(smtpPort, warmUp, measured);

    // (b): every waiter's campaign_mail_wait as a raw call on its own session, then one mail.
    const calls = waiters.map((w, i) => ({
      url: w.raw.url,
      headers: w.raw.headers,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i + 1,
        method: 'tools/call',
        params: {
          name: 'campaign_mail_wait',
          arguments: { campaign_id: wakeBox.id, after_cursor: cursors[i], timeout_seconds: 25 },
        },
      }),
    }));
    const sender = new SmtpSender(smtpPort);
    let wake: Awaited<ReturnType<typeof wakeLatencies>>;
    try {
      await sender.open();
      wake = await wakeLatencies(calls, sender, message(`${runId}-wake`, 0, wakeBox.address));
    } finally {
      sender.close();
    }

    // What the owner sees: every mailbox holding exactly what was sent to it.
    const usage = [];
    for (const box of [...inboxes, warmBox, wakeBox]) {
      const view = await ownerApi(baseUrl, ids.ownerToken, 'GET', `/v1/campaigns/${box.id}/mail`);
      usage.push({
        messages: view.usage?.messages as number,
        state: view.delivery_state as string,
        refusedAttempts: (view.attempts as Array<{ outcome: string }>).filter((a) => a.outcome === 'REFUSED')
          .length,
      });
    }
    return { deliveries, wake, usage };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await stop(child);
    if (child.process.exitCode !== 0 && child.process.exitCode !== null) {
      process.stderr.write(`cairn serve exited ${child.process.exitCode}:\n${child.tail()}\n`);
    }
  }
}

async function baselineRun(runId: string): Promise<Deliveries> {
  const port = await freePort();
  const child = startNode('baseline smtp-server', ['--import', 'tsx', 'bench/mail-baseline.ts'], {
    ...process.env,
    PORT: String(port),
  });
  try {
    await waitForSmtp(child, port);
    const warmUp = Array.from({ length: CONNECTIONS }, (_, c) =>
      message(`${runId}-warm`, c, 'warm-up@baseline.bench.test'),
    );
    const measured = Array.from({ length: DELIVERIES }, (_, n) =>
      message(runId, n, `inbox-${n % MAILBOXES}@baseline.bench.test`),
    );
    return await deliver(port, warmUp, measured);
  } finally {
    await stop(child);
  }
}

export async function runMailBenchmark(): Promise<number> {
  const databaseUrl = process.env.DATABASE_URL || undefined;
  const dataDir = makeTempDir('cairn-bench-mail-');
  const runId = randomUUID().slice(0, 8);
  try {
    const where = { databaseUrl, dataDir };
    process.stdout.write(`mail benchmark on ${databaseUrl ? 'PostgreSQL' : 'embedded (PGlite)'}\n`);
    const ids = await provisionMailIdentities(where, WAITERS);
    process.stdout.write(
      `mail: ${DELIVERIES.toLocaleString('en')} messages over SMTP from ${CONNECTIONS} connections (${DELIVERIES / CONNECTIONS} each, back to back) to ${MAILBOXES} mailboxes; ${WAITERS} campaign_mail_wait waiters\n`,
    );
    const cairn = await cairnRun(ids, where, runId);
    const baseline = await baselineRun(runId);

    const cairnRate = report('cairn', cairn.deliveries);
    const baselineRate = report('baseline', baseline);
    process.stdout.write(
      '          (cairn: `cairn serve` with its SMTP receiver, parsing in its parser pool, storing per mailbox; baseline: bare smtp-server + mailparser simpleParser, nothing kept)\n',
    );
    const { latencies, mails, sent } = cairn.wake;
    process.stdout.write(
      `campaign_mail_wait wake-up of ${latencies.length} waiting calls from the start of one SMTP delivery (itself ${sent.ms.toFixed(1)} ms to its 250): p50=${percentile(latencies, 50).toFixed(1)}ms p95=${percentile(latencies, 95).toFixed(1)}ms max=${Math.max(...latencies).toFixed(1)}ms\n`,
    );
    const expected = [...Array.from({ length: MAILBOXES }, () => DELIVERIES / MAILBOXES), CONNECTIONS, 1];
    const held = cairn.usage.map((u) => u.messages);
    process.stdout.write(
      `mailboxes (owner API): messages ${held.join(', ')} (expected ${expected.join(', ')}); delivery ${[...new Set(cairn.usage.map((u) => u.state))].join(', ')}\n`,
    );

    const problems: string[] = [];
    if (cairn.deliveries.refused.length > 0) {
      problems.push(`cairn refused or deferred ${cairn.deliveries.refused.length} deliveries`);
    }
    if (baseline.refused.length > 0) {
      problems.push(`the baseline refused ${baseline.refused.length} deliveries`);
    }
    if (held.some((n, i) => n !== expected[i])) problems.push('a mailbox does not hold what was sent to it');
    if (cairn.usage.some((u) => u.refusedAttempts > 0)) problems.push('the owner API lists refused attempts');
    if (cairn.usage.some((u) => u.state !== 'VERIFIED')) problems.push('a mailbox is not VERIFIED');
    if (!sent.ok) problems.push(`the wake-up mail was refused: ${sent.response}`);
    if (latencies.length !== WAITERS || mails.some((n) => n !== 1)) {
      problems.push('a waiter was not answered with exactly the new mail');
    }
    if (problems.length > 0) {
      process.stderr.write(`FAILED: ${problems.join('; ')}.\n`);
      return 1;
    }
    process.stdout.write(`cairn_deliveries_per_s=${cairnRate.toFixed(1)}\n`);
    process.stdout.write(`baseline_deliveries_per_s=${baselineRate.toFixed(1)}\n`);
    process.stdout.write(`mail_ratio=${(cairnRate / baselineRate).toFixed(3)}\n`);
    return 0;
  } finally {
    removeTempDir(dataDir);
  }
}
