import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pino from 'pino';
import { createApp } from './app.ts';
import { loadAppConfig, TABLES } from './domains/catalog.ts';
import { DEMO_STEPS } from './domains/discovery/demo.ts';
import { openDatabase } from './storage/database.ts';

/**
 * `npm run demo`: Cairn on a temporary embedded database, a web page served on loopback, two
 * agents paired through the real device flow, and a campaign taken to a VERIFIED task over
 * MCP, printing each step (the list in domains/discovery/demo.ts, also served at
 * /v1/public/demo). Nothing leaves the machine; everything is removed at the end.
 */

const QUOTE = 'Cairns have marked mountain trails for thousands of years';
const PAGE = `<!doctype html><html><head><title>Cairns: a field guide</title></head><body><article>
<h1>Cairns: a field guide</h1><p>${QUOTE}. Walkers add a stone as they pass, and the pile grows
over the seasons into a landmark that can be seen through fog.</p></article></body></html>`;

// biome-ignore lint/suspicious/noExplicitAny: the demo reads varied answers
type Answer = Record<string, any>;

let stepIndex = 0;
function step(actor: string, call: string, result: string): void {
  const expected = DEMO_STEPS[stepIndex];
  if (!expected || expected.actor !== actor || expected.call !== call) {
    throw new Error(
      `demo out of step: ${actor} ${call} is not step ${stepIndex + 1} (${JSON.stringify(expected)})`,
    );
  }
  stepIndex++;
  process.stdout.write(
    `${String(stepIndex).padStart(2)}. ${actor.padEnd(6)} ${call}: ${expected.what}\n    → ${result}\n`,
  );
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-demo-'));
  const site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(PAGE));
  const sitePort = await listen(site);
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  const config = loadAppConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    CAIRN_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    CAIRN_FETCH_ALLOW: `127.0.0.1:${sitePort}`,
  });
  const database = await openDatabase({ tables: TABLES, dataDir: path.join(dataDir, 'pg') });
  const app = await createApp(config, database, { logger: pino({ level: 'error' }) });
  await app.http.listen({ port, host: '127.0.0.1' });
  const base = config.baseUrl;
  process.stdout.write(`Cairn demo: server at ${base}, a page at http://127.0.0.1:${sitePort}/\n\n`);
  const clients: Client[] = [];
  try {
    const { owner_id: ownerId } = await app.services.identity.addOwner(
      'demo-owner@example.org',
      randomPassword(),
    );

    const pair = async (actor: string, name: string, activateRead: boolean): Promise<Client> => {
      const started = (await (
        await fetch(`${base}/oauth/device_authorization`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ display_name: name, runtime: 'cairn-demo' }),
        })
      ).json()) as Answer;
      step(
        actor,
        'POST /oauth/device_authorization',
        `user code ${started.user_code}: "${started.say_to_user}"`,
      );
      // In the console the owner types the code and decides; the demo makes the same decision.
      const decided = await app.services.device.decide(ownerId, started.user_code, {
        approve: true,
        activateRead,
      });
      const token = (await (
        await fetch(`${base}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
            device_code: started.device_code,
          }),
        })
      ).json()) as Answer;
      if (!token.access_token) throw new Error(`pairing failed: ${JSON.stringify(token)}`);
      step(
        'owner',
        'approve pairing',
        `identity ${decided.agent_id}${activateRead ? ', public reading on' : ''}; the agent's poll got its access token`,
      );
      const client = new Client({ name: `cairn-demo-${actor}`, version: '1.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token.access_token}` } },
        }),
      );
      clients.push(client);
      return client;
    };
    let keys = 0;
    const call = async (client: Client, actor: string, tool: string, args: Answer, mutates = false) => {
      const r = await client.callTool({
        name: tool,
        arguments: mutates ? { ...args, idempotency_key: `cairn-demo-${++keys}` } : args,
      });
      const body = r.structuredContent as Answer;
      if (r.isError) throw new Error(`the ${actor}'s ${tool} was refused: ${JSON.stringify(body.error)}`);
      return body;
    };
    const next = (a: Answer) =>
      (a.next_steps ?? [])
        .map((s: Answer) => s.tool)
        .filter(Boolean)
        .join(', ');

    const lead = await pair('lead', 'Demo lead', true);
    const worker = await pair('worker', 'Demo worker', false);
    const workerId = ((await call(worker, 'worker', 'identity_whoami', {})) as Answer).agent_id as string;

    const leadCaps = await call(lead, 'lead', 'capabilities_describe', {});
    step(
      'lead',
      'capabilities_describe',
      `active through ${leadCaps.active_through.join(', ')}; next: ${next(leadCaps)}`,
    );
    const created = await call(
      lead,
      'lead',
      'campaign_create',
      {
        title: 'Trail markers',
        objective: 'Verify one fact about cairns.',
        allow_agent_publish: false,
        visibility: 'SHARED',
        participation: 'APPLICATION',
      },
      true,
    );
    const campaignId = created.campaign_id as string;
    step('lead', 'campaign_create', `${campaignId}; next: ${next(created)}`);
    const invited = await call(
      lead,
      'lead',
      'campaign_invite',
      { campaign_id: campaignId, agent_id: workerId, role: 'PARTICIPANT' },
      true,
    );
    step('lead', 'campaign_invite', `${workerId} is ${invited.membership}`);
    // The worker is inert: only its owner activates it. On the console's Campaigns page the owner
    // accepts the invitation, which activates it for campaign work; the demo makes the same call.
    const accepted = await app.services.campaigns.decideInvitation(ownerId, campaignId, workerId, true);
    step(
      'owner',
      'accept the invitation',
      `${workerId} is ${accepted.membership}, activated for campaign work`,
    );
    const published = await call(
      lead,
      'lead',
      'task_publish',
      {
        campaign_id: campaignId,
        title: 'What do cairns mark?',
        objective: 'Find one verifiable fact about what cairns mark.',
        acceptance: 'A verbatim quotation that matches a recorded source.',
        conditions: {
          available_data: 'Public pages about cairns.',
          authorized_scope: 'Read public pages only.',
          deliverable: 'One sentence with a verbatim quotation.',
          reproduction_steps: 'Open the cited evidence and find the quotation.',
          time_budget_minutes: 30,
          stop_conditions: 'Stop at any sign-in page.',
          reviewer: 'the lead',
        },
      },
      true,
    );
    step('lead', 'task_publish', `${published.task_id}; next: ${next(published)}`);

    const workerCaps = await call(worker, 'worker', 'capabilities_describe', {});
    step('worker', 'capabilities_describe', `first next step: ${workerCaps.next_steps[0]?.action}`);
    const joined = await call(worker, 'worker', 'campaign_join', { campaign_id: campaignId }, true);
    step('worker', 'campaign_join', `membership ${joined.membership}; next: ${next(joined)}`);
    const listed = await call(worker, 'worker', 'task_list', { campaign_id: campaignId, status: 'OPEN' });
    step('worker', 'task_list', `${listed.tasks.length} open task(s); next: ${next(listed)}`);
    const claimed = await call(worker, 'worker', 'task_claim', { task_id: published.task_id }, true);
    step('worker', 'task_claim', `lease ${claimed.lease.lease_id} until ${claimed.lease.execution_deadline}`);
    const read = await call(worker, 'worker', 'fetch_text', {
      url: `http://127.0.0.1:${sitePort}/`,
      declared_purpose: 'Evidence for the demo task.',
      task_id: published.task_id,
    });
    step(
      'worker',
      'fetch_text',
      `evidence ${read.evidence_id}, receipt ${read.policy?.receipt_id ?? '(see evidence)'}`,
    );
    const done = await call(
      worker,
      'worker',
      'task_complete',
      {
        task_id: published.task_id,
        lease_id: claimed.lease.lease_id,
        evidence_ids: [read.evidence_id],
        claimed_outcome: 'COMPLETE',
        summary: `Cairns mark trails: "${QUOTE}".`,
      },
      true,
    );
    step('worker', 'task_complete', `${done.task_status}; ${done.matched_quotes.length} quotation matched`);
    const seen = await call(lead, 'lead', 'task_get', { task_id: published.task_id });
    step('lead', 'task_get', `status ${seen.status}`);
    if (seen.status !== 'VERIFIED') throw new Error('the task did not end VERIFIED');
    process.stdout.write('\nDone: the task is VERIFIED. Everything the demo made is removed now.\n');
  } finally {
    for (const c of clients) await c.close().catch(() => {});
    await app.http.close();
    await database.close();
    site.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function randomPassword(): string {
  return randomBytes(18).toString('base64url');
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`demo failed: ${err instanceof Error ? err.message : err}\n`);
    process.exit(1);
  },
);
