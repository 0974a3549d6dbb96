import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, key, type Member, newMember, publishTask } from '../support/campaigns.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 23 item 2: the SQL statements (database round trips) a tool call takes, authentication
 * included, as `CAIRN_DEBUG_DB_STATEMENTS=true` reports them in `x-cairn-db-statements`. The
 * documented counts (docs/performance.md, "Round trips") are read from the page itself, so a
 * change that adds a statement to a hot call fails here until the page says why; one that removes
 * a statement fails too, until the page is brought down with it.
 */

let site: FixtureSite;
let server: TestServer;
let coordinator: Member;
let worker: Member;
let reader: Member;
let campaignId: string;

beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ env: { ...site.env, CAIRN_DEBUG_DB_STATEMENTS: 'true' } });
  coordinator = await newMember(server);
  worker = await newMember(server);
  reader = await newMember(server);
  campaignId = await campaignWith(coordinator, [worker]);
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

/**
 * The documented counts: the "Round trips" table of docs/performance.md, by row label, in the
 * column of the database this run uses (PostgreSQL's, then PGlite's).
 */
function documented(kind: 'postgres' | 'pglite'): Map<string, number> {
  const page = readFileSync('docs/performance.md', 'utf8');
  const from = page.indexOf('## Round trips');
  const to = page.indexOf('\n## ', from + 1);
  const section = page.slice(from, to === -1 ? undefined : to);
  const rows = new Map<string, number>();
  for (const m of section.matchAll(/^\| `([^`]+)`[^|]*\| (\d+) \| (\d+) \|/gm)) {
    rows.set(m[1] as string, Number(kind === 'postgres' ? m[2] : m[3]));
  }
  return rows;
}

/** One tools/call over plain HTTP; its answer and the statements it took. `refusal`: the error code it must answer with. */
async function call(m: Member, tool: string, args: Record<string, unknown>, refusal?: string) {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${m.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: tool, arguments: args },
    }),
  });
  const body = (await res.json()) as {
    result: { isError?: boolean; structuredContent: Record<string, unknown> };
  };
  expect(body.result.isError ?? false, `${tool}: ${JSON.stringify(body.result)}`).toBe(refusal !== undefined);
  if (refusal) expect((body.result.structuredContent.error as { code: string }).code).toBe(refusal);
  const header = res.headers.get('x-cairn-db-statements');
  expect(header, 'the debug header is on').toMatch(/^\d+$/);
  return { answer: body.result.structuredContent, statements: Number(header) };
}

describe('database round trips per tool call (docs/performance.md)', () => {
  it('each hot call takes exactly the documented number of statements', async () => {
    const taskId = await publishTask(coordinator, campaignId);
    const measured = new Map<string, number>();
    measured.set('identity_whoami', (await call(worker, 'identity_whoami', {})).statements);
    measured.set('task_get', (await call(worker, 'task_get', { task_id: taskId })).statements);
    const claim = await call(worker, 'task_claim', { task_id: taskId, idempotency_key: key() });
    measured.set('task_claim', claim.statements);
    // The contested loser (900 of the 1,000 attempts of `npm run bench -- campaign`).
    measured.set(
      'task_claim (lost)',
      (
        await call(
          coordinator,
          'task_claim',
          { task_id: taskId, idempotency_key: key() },
          'TASK_ALREADY_CLAIMED',
        )
      ).statements,
    );
    measured.set(
      'message_append',
      (
        await call(worker, 'message_append', {
          campaign_id: campaignId,
          type: 'NOTE',
          content: 'Starting on the task now.',
          idempotency_key: key(),
        })
      ).statements,
    );
    measured.set(
      'events_watch',
      (await call(worker, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 })).statements,
    );
    // A page no run stored before, then the same page again (a shared PostgreSQL keeps bodies).
    const read = { url: `${site.origin}/unique`, declared_purpose: 'Count round trips.' };
    measured.set('fetch_text (new page)', (await call(reader, 'fetch_text', read)).statements);
    const again = { url: `${site.origin}/article`, declared_purpose: 'Count round trips.' };
    await call(reader, 'fetch_text', again);
    measured.set('fetch_text (stored copy)', (await call(reader, 'fetch_text', again)).statements);

    // The worker reads the page under its lease and hands in a result quoting it.
    const evidence = await call(worker, 'fetch_text', { ...again, task_id: taskId });
    measured.set(
      'task_complete',
      (
        await call(worker, 'task_complete', {
          task_id: taskId,
          lease_id: (claim.answer.lease as { lease_id: string }).lease_id,
          evidence_ids: [evidence.answer.evidence_id],
          claimed_outcome: 'COMPLETE',
          summary: `"${ARTICLE_QUOTE}"`,
          idempotency_key: key(),
        })
      ).statements,
    );

    // All at once, so one run shows every call that moved.
    const docs = documented(server.database.kind);
    const listed = Object.fromEntries([...measured.keys()].map((label) => [label, docs.get(label)]));
    expect(Object.fromEntries(measured)).toEqual(listed);
    // And the page lists nothing this test does not measure.
    expect([...docs.keys()].sort()).toEqual([...measured.keys()].sort());
  });
});
