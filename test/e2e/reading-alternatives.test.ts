import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignWith,
  claimedTask,
  inertMember,
  key,
  type Member,
  newMember,
  publishTask,
} from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 13 item 2: every reading refusal's alternatives can be followed. Each alternative that
 * names a tool is called, as the caller that was refused, with the arguments the alternative
 * gives; it must succeed (a retry of a retryable refusal is the one thing left uncalled, since
 * only time can make it succeed). No search provider is configured here, the situation that
 * once sent readers from fetch_text to web_search and back.
 */

let site: FixtureSite;
let server: TestServer;
let coordinator: Member;
let campaignId: string;
beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ env: site.env });
  coordinator = await newMember(server);
  campaignId = await campaignWith(coordinator, []);
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

interface Alternative {
  tool?: string;
  action: string;
  arguments?: Record<string, unknown>;
}

const PURPOSE = 'Checking facts for the campaign task.';

/** The arguments an agent would bring to each tool an alternative names, before the alternative's own. */
async function argsFor(tool: string, refusedUrl: string | undefined): Promise<Record<string, unknown>> {
  switch (tool) {
    case 'fetch_text':
      return { url: `${site.origin}/article`, declared_purpose: PURPOSE };
    case 'fetch_snapshot':
      return { url: refusedUrl };
    case 'web_search':
      return { query: 'moorland birds' };
    case 'task_list':
      return { campaign_id: campaignId };
    case 'task_claim':
      return { task_id: await publishTask(coordinator, campaignId), idempotency_key: key() };
    default:
      throw new Error(`no arguments known for ${tool}`);
  }
}

/** Follows every alternative of a refusal; returns what went wrong, empty when all can succeed. */
async function follow(caller: Member, tool: string, args: Record<string, unknown>, code: string) {
  const first = await callTool(caller.client, tool, args);
  expect(first.body.error?.code, JSON.stringify(first.body)).toBe(code);
  const error = first.body.error as { retryable: boolean; allowed_alternatives?: Alternative[] };
  const alternatives = error.allowed_alternatives ?? [];
  expect(alternatives.length, `${code} offers no alternative`).toBeGreaterThan(0);
  const problems: string[] = [];
  for (const alt of alternatives) {
    if (!alt.tool) continue;
    const refusedUrl = typeof args.url === 'string' ? args.url : undefined;
    const merged = { ...(await argsFor(alt.tool, refusedUrl)), ...alt.arguments };
    const sameCall =
      alt.tool === tool && Object.keys({ ...merged, ...args }).every((k) => merged[k] === args[k]);
    if (sameCall) {
      if (!error.retryable) problems.push(`${code}: offers the same call again but is not retryable`);
      continue;
    }
    const next = await callTool(caller.client, alt.tool, merged);
    if (next.isError)
      problems.push(`${code} → ${alt.tool} ${JSON.stringify(merged)}: ${next.body.error.code}`);
  }
  return problems;
}

describe('following the alternatives of reading refusals', () => {
  it('from a lease refusal, to a task, never back to another read', async () => {
    const worker = await inertMember(server, coordinator, campaignId);
    const read = { url: `${site.origin}/article`, declared_purpose: PURPOSE };
    expect(await follow(worker, 'fetch_text', read, 'LEASE_REQUIRED')).toEqual([]);

    const other = await inertMember(server, coordinator, campaignId);
    const held = await claimedTask(coordinator, coordinator, campaignId);
    expect(await follow(other, 'fetch_text', { ...read, task_id: held.taskId }, 'LEASE_REQUIRED')).toEqual(
      [],
    );

    const busy = await inertMember(server, coordinator, campaignId);
    await claimedTask(coordinator, busy, campaignId);
    await claimedTask(coordinator, busy, campaignId);
    expect(await follow(busy, 'fetch_text', read, 'LEASE_AMBIGUOUS')).toEqual([]);
  });

  it('from an unconfigured search, to a read only when the caller may read now', async () => {
    const reader = await newMember(server);
    const search = { query: 'moorland birds' };
    expect(await follow(reader, 'web_search', search, 'SEARCH_NOT_CONFIGURED')).toEqual([]);
    const worker = await inertMember(server, coordinator, campaignId);
    const refusal = await callTool(worker.client, 'web_search', search);
    const tools = refusal.body.error.allowed_alternatives.map((a: Alternative) => a.tool);
    expect(tools).not.toContain('fetch_text');
    expect(tools).toContain('task_claim');
    expect(await follow(worker, 'web_search', search, 'SEARCH_NOT_CONFIGURED')).toEqual([]);
  });

  it('from every refusal of the URL or the page', async () => {
    const reader = await newMember(server);
    const cases: Array<[string, string]> = [
      [`${site.origin}/article?next=https%3A%2F%2Fevil.example%2F`, 'NESTED_UNWRAP'],
      [`${site.origin}/article?token=abcdef123456`, 'CREDENTIAL_IN_INPUT'],
      ['http://10.1.2.3/', 'ADDRESS_NOT_PUBLIC'],
      ['ftp://example.org/file', 'URL_NOT_ALLOWED'],
      [`${site.origin}/members`, 'SIGN_IN_SURFACE'],
      [`${site.origin}/app`, 'APP_SHELL'],
      [`${site.origin}/private/report`, 'ROBOTS_DISALLOWED'],
      [`${site.origin}/video.mp4`, 'UNSUPPORTED_CONTENT'],
      [`${site.origin}/missing`, 'UPSTREAM_HTTP_ERROR'],
      [`${site.origin}/broken`, 'UPSTREAM_HTTP_ERROR'],
      [`${site.origin}/redirect/loop`, 'TOO_MANY_REDIRECTS'],
    ];
    for (const [url, code] of cases) {
      expect(await follow(reader, 'fetch_text', { url, declared_purpose: PURPOSE }, code), url).toEqual([]);
    }
  });

  it('never offers a stored copy the caller cannot see, and offers the read that stores one', async () => {
    const reader = await newMember(server);
    const snapshot = async (url: string) => {
      const r = await callTool(reader.client, 'fetch_text', { url, declared_purpose: PURPOSE });
      return r.body.error.allowed_alternatives.some((a: Alternative) => a.tool === 'fetch_snapshot');
    };
    expect(await snapshot(`${site.origin}/broken`)).toBe(false);
    // A copy read by someone else and not shared with this reader is not offered.
    const other = await newMember(server);
    const stored = await callTool(other.client, 'fetch_text', {
      url: `${site.origin}/changing`,
      declared_purpose: PURPOSE,
    });
    expect(stored.isError).toBe(false);
    const fromSnapshot = await callTool(reader.client, 'fetch_snapshot', { url: `${site.origin}/changing` });
    expect(fromSnapshot.body.error.code).toBe('NOT_FOUND');
    expect(fromSnapshot.body.error.allowed_alternatives[0]).toMatchObject({
      tool: 'fetch_text',
      arguments: { url: `${site.origin}/changing` },
    });
  });
});
