import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createApp } from '../src/app.ts';
import { loadAppConfig } from '../src/domains/catalog.ts';
import type { Database } from '../src/storage/database.ts';
import { makeTempDir, removeTempDir } from './children.ts';

/**
 * Set-up for the rewards benchmark (nothing here is measured): paid tasks each with a release
 * request waiting for the campaign owner, made fast but for real. An in-process Cairn on the
 * bench database runs the same operations an agent calls over MCP (task_publish with
 * reward_points, task_claim, fetch_text under the task from a loopback article, task_complete
 * verified by the paid-quote rule, reward_release RELEASE), with no HTTP in between.
 */

const QUOTE = 'Cairns have marked mountain trails for thousands of years';

const ARTICLE = `<!doctype html><html><head><meta charset="utf-8"><title>Cairns: a field guide</title></head>
<body><article><h1>Cairns: a field guide</h1>
<p>${QUOTE}. Walkers add a stone as they pass, and the pile grows over the seasons into a landmark that can be seen through fog.</p>
<h2>Building a cairn</h2>
<p>Choose flat stones and place the widest at the base. A well built cairn stands for decades without mortar, and every walker who passes may repair it.</p>
<h2>Reading the landscape</h2>
<p>On open moorland the cairns are often the only marks; follow them from one to the next and keep the previous one in sight.</p>
</article></body></html>`;

const CONDITIONS = {
  available_data: 'Public web pages about cairns.',
  authorized_scope: 'Read public pages only.',
  deliverable: 'A short summary with a verbatim quotation.',
  reproduction_steps: 'Open the cited evidence record and find the quotation.',
  time_budget_minutes: 60,
  stop_conditions: 'Stop when a source asks for a sign-in.',
  reviewer: 'the campaign coordinator',
};

export interface PendingRelease {
  taskId: string;
  approvalId: string;
  workerOwnerId: string;
}

export interface Prepared {
  /** An owner API token (cd_own_…) of the campaign's owner, who decides every request. */
  token: string;
  coordinatorOwnerId: string;
  workerOwnerIds: string[];
  campaignId: string;
  /** In task order. */
  releases: PendingRelease[];
}

/** Serves the article at /article (everything else, robots.txt included, is 404: allowed). */
async function serveArticle(): Promise<{ port: number; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    if (req.url === '/article') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(ARTICLE);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * `tasks` paid tasks of `reward` points in one campaign of one owner (credited exactly what
 * they cost), worked by `workers` agents of as many other owners, each task's release asked.
 */
export async function preparePendingReleases(
  database: Database,
  databaseUrl: string,
  secret: string,
  opts: { tasks: number; workers: number; reward: number },
): Promise<Prepared> {
  const site = await serveArticle();
  const dataDir = makeTempDir('cairn-bench-rewards-');
  const config = loadAppConfig({
    DATABASE_URL: databaseUrl,
    CAIRN_DATA_DIR: dataDir,
    CAIRN_SECRET: secret,
    LOG_LEVEL: 'silent',
    CAIRN_FETCH_ALLOW: `127.0.0.1:${site.port}`,
    CAIRN_FETCH_PORTS: String(site.port),
  });
  const app = await createApp(config, database, { logger: pino({ level: 'silent' }) });
  try {
    const { identity, funds } = app.services;
    let request = 0;
    const mutating = new Set(
      app.runner
        .all()
        .filter(({ op }) => op.mutates)
        .map(({ op }) => op.name),
    );
    /** Runs one operation as the agent of `key`, as /mcp would after authenticating it. */
    const run = async (agentKey: string, tool: string, args: Record<string, unknown>) => {
      const { caller } = await identity.authenticate(agentKey);
      const keyed = mutating.has(tool) ? { ...args, idempotency_key: `bench-${randomUUID()}` } : args;
      const outcome = await app.runner.run(tool, keyed, caller, `bench-${++request}`);
      if (!outcome.ok) throw new Error(`${tool} failed: ${JSON.stringify(outcome.error).slice(0, 500)}`);
      // biome-ignore lint/suspicious/noExplicitAny: the set-up reads into varied answers
      return outcome.result as Record<string, any>;
    };
    const agentOfNewOwner = async (name: string) => {
      const email = `bench-${randomUUID()}@example.org`;
      const { owner_id } = await identity.addOwner(email, randomBytes(12).toString('hex'));
      const { agent_id } = await identity.addAgent({
        ownerEmail: email,
        displayName: name,
        runtime: 'bench',
        kind: 'OWNER_CREATED',
      });
      await identity.setMode(agent_id, 'READ');
      const { project_key } = await identity.addProjectKey(agent_id, 1);
      return { email, ownerId: owner_id, agentId: agent_id, key: project_key };
    };

    const coordinator = await agentOfNewOwner('bench coordinator');
    const workers = await Promise.all(
      Array.from({ length: opts.workers }, (_, i) => agentOfNewOwner(`bench worker ${i}`)),
    );
    await funds.credit({
      ownerId: coordinator.ownerId,
      currency: 'POINTS',
      amount: opts.tasks * opts.reward * (1 + funds.feePct / 100),
      actor: 'bench',
    });
    const { token } = await identity.addOwnerToken(coordinator.email, 'bench', 1);
    const created = await run(coordinator.key, 'campaign_create', {
      title: 'Rewards bench',
      objective: 'Pay for verified facts.',
      allow_agent_publish: false,
      visibility: 'SHARED',
      participation: 'OPEN',
    });
    const campaignId = created.campaign_id as string;
    for (const w of workers) await run(w.key, 'campaign_join', { campaign_id: campaignId });

    const taskIds: string[] = [];
    for (let i = 0; i < opts.tasks; i++) {
      const published = await run(coordinator.key, 'task_publish', {
        campaign_id: campaignId,
        title: `Paid fact ${i}`,
        objective: 'Find one verifiable fact about cairns.',
        acceptance: 'A quotation that matches a recorded source.',
        conditions: CONDITIONS,
        reward_points: opts.reward,
      });
      if (published.reward?.status !== 'ESCROWED') {
        throw new Error(`task ${i} was not escrowed: ${JSON.stringify(published.reward)}`);
      }
      taskIds.push(published.task_id as string);
    }

    // Worker w takes tasks w, w + workers, w + 2·workers, …; the workers go side by side.
    const releases: PendingRelease[] = new Array(opts.tasks);
    await Promise.all(
      workers.map(async (w, wi) => {
        for (let t = wi; t < opts.tasks; t += opts.workers) {
          const taskId = taskIds[t] as string;
          const claimed = await run(w.key, 'task_claim', { task_id: taskId });
          const read = await run(w.key, 'fetch_text', {
            url: `http://127.0.0.1:${site.port}/article`,
            declared_purpose: 'Checking a fact for the paid task.',
            task_id: taskId,
          });
          const done = await run(w.key, 'task_complete', {
            task_id: taskId,
            lease_id: claimed.lease.lease_id,
            evidence_ids: [read.evidence_id],
            claimed_outcome: 'COMPLETE',
            summary: `The article states "${QUOTE}" which answers the question.`,
          });
          if (done.task_status !== 'VERIFIED') {
            throw new Error(`task ${t} did not verify: ${JSON.stringify(done).slice(0, 500)}`);
          }
          const asked = await run(w.key, 'reward_release', { task_id: taskId, action: 'RELEASE' });
          releases[t] = { taskId, approvalId: asked.approval_id as string, workerOwnerId: w.ownerId };
        }
      }),
    );
    return {
      token,
      coordinatorOwnerId: coordinator.ownerId,
      workerOwnerIds: workers.map((w) => w.ownerId),
      campaignId,
      releases,
    };
  } finally {
    // Stops the app's background workers and its parser pool; the database stays open.
    await app.http.close();
    await site.close();
    removeTempDir(dataDir);
  }
}
