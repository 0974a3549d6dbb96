import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, claimedTask, type Member, newMember, ok } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { argumentsFor, type JsonSchema, type Pools } from '../support/fuzz-args.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 14 item 5, fuzzing as a standing test: arguments generated from every tool's own input
 * schema, sent as raw JSON-RPC by a coordinator who can see every campaign tool, with a fixed
 * seed and a bounded count. Any INTERNAL, any JSON-RPC -32603, any HTTP 5xx, any answer slower
 * than five seconds, or a server that stops answering fails the test.
 */

const SEED = 1_324_2026;
const RUNS_PER_TOOL = Number(process.env.FUZZ_RUNS ?? 30);
const SLOW_MS = 5_000;

let site: FixtureSite;
let server: TestServer;
let coordinator: Member;
let tools: Array<{ name: string; mutates: boolean; input_schema: JsonSchema }>;
const pools: Pools = {};

beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ env: site.env });
  coordinator = await newMember(server);
  const worker = await newMember(server);
  const campaignId = await campaignWith(coordinator, [worker]);
  const held = await claimedTask(coordinator, coordinator, campaignId);
  const open = await claimedTask(coordinator, worker, campaignId);
  const read = await callTool(coordinator.client, 'fetch_text', {
    url: `${site.origin}/article`,
    declared_purpose: 'Fuzzing with a real piece of evidence.',
    task_id: held.taskId,
  });
  const message = await ok(coordinator, 'message_append', {
    type: 'NOTE',
    content: 'A note.',
    campaign_id: campaignId,
  });
  Object.assign(pools, {
    cmp: [campaignId],
    task: [held.taskId, open.taskId],
    lse: [held.leaseId, open.leaseId],
    evd: [read.body.evidence_id],
    pol: [read.body.policy?.receipt_id].filter(Boolean),
    agt: [coordinator.agentId, worker.agentId],
    msg: [message.message_id].filter(Boolean),
    url: [
      `${site.origin}/article`,
      `${site.origin}/doc.pdf`,
      `${site.origin}/missing`,
      'http://10.0.0.1/',
      'ftp://example.org/x',
      'not a url',
      'http://[::1]:8080/',
      'https://example.invalid/',
    ],
    domain: ['example.invalid', 'localhost', '-bad-.example', 'xn--.example'],
  });
  const published = await fetch(`${server.url}/v1/public/tools?format=json`);
  tools = ((await published.json()) as { tools: typeof tools }).tools;
}, 60_000);
afterAll(async () => {
  await server?.close();
  await site?.close();
});

let keys = 0;

/** One raw tools/call; returns what went wrong, or null when the answer was a clean one. */
async function probe(tool: string, args: Record<string, unknown>, mutates: boolean): Promise<string | null> {
  const body = { ...args };
  // A long wait is a legitimate slow answer, not a fault: a valid wait is cut to one second.
  if (tool === 'events_watch' && Number.isInteger(body.wait_seconds)) body.wait_seconds = 1;
  // Every tenth mutating call goes without a key, deterministically.
  if (mutates && ++keys % 10 !== 0) body.idempotency_key ??= `fuzz-key-${keys}`;
  const started = performance.now();
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${coordinator.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: body },
    }),
  });
  const text = await res.text();
  const ms = performance.now() - started;
  if (ms > SLOW_MS) return `slow: ${Math.round(ms)} ms`;
  if (res.status >= 500) return `HTTP ${res.status}: ${text.slice(0, 300)}`;
  const answer = JSON.parse(text.startsWith('event:') || text.startsWith('data:') ? sseData(text) : text);
  if (answer.error?.code === -32603) return `JSON-RPC -32603: ${text.slice(0, 300)}`;
  const code = answer.result?.structuredContent?.error?.code;
  if (code === 'INTERNAL') return `INTERNAL: ${text.slice(0, 300)}`;
  return null;
}

function sseData(text: string): string {
  return text
    .split('\n')
    .filter((l) => l.startsWith('data:'))
    .map((l) => l.slice(5).trim())
    .join('');
}

describe('fuzzing every tool from its own input schema', () => {
  it('answers every malformed call cleanly and quickly', async () => {
    expect(tools.length).toBeGreaterThan(40);
    const problems: string[] = [];
    for (const [i, tool] of tools.entries()) {
      await fc
        .assert(
          fc.asyncProperty(argumentsFor(tool.input_schema, pools), async (args) => {
            const problem = await probe(tool.name, args, tool.mutates);
            if (problem) problems.push(`${tool.name} ${JSON.stringify(args).slice(0, 400)} → ${problem}`);
            return problem === null;
          }),
          { seed: SEED + i, numRuns: RUNS_PER_TOOL, endOnFailure: true },
        )
        .catch(() => {});
    }
    // The server still answers after all of it.
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect(problems).toEqual([]);
  }, 600_000);
});
