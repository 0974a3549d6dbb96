import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { newToken } from '../../src/kernel/ids.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

const identity = () => server.app.services.identity;

/** A raw JSON-RPC POST to /mcp, as a hand-written client would send it. */
async function rpc(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const initialize = (protocolVersion = '2025-11-25') => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0.1' } },
});

describe('MCP endpoint with the official SDK client', () => {
  it('initializes on protocol 2025-11-25 and shows a new identity exactly the two always-available tools', async () => {
    const agent = await createAgent(identity());
    const client = await connectClient(server.url, agent.key);
    expect(client.getServerVersion()).toMatchObject({ name: 'Cairn', version: '0.9.0' });
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['capabilities_describe', 'identity_whoami']);
    await client.close();
  });

  it('identity_whoami reports the identity, its owner, and why it is inactive', async () => {
    const agent = await createAgent(identity());
    const client = await connectClient(server.url, agent.key);
    const { isError, body } = await callTool(client, 'identity_whoami');
    expect(isError).toBe(false);
    expect(body).toMatchObject({
      agent_id: agent.agentId,
      display_name: 'Test agent',
      runtime: 'vitest',
      owner: { email: agent.ownerEmail },
      mode: 'NONE',
      active: false,
      inactive_reason: { code: 'NO_MODE_ACTIVATED' },
      about_you: { label: 'CLAIMED_NOT_VERIFIED' },
    });
    expect(typeof body.about_you.ask_user).toBe('string');
    await client.close();
  });

  it('capabilities_describe explains every tool, and activation changes the list at once', async () => {
    const agent = await createAgent(identity());
    const client = await connectClient(server.url, agent.key);
    const before = (await callTool(client, 'capabilities_describe')).body;
    expect(before).toMatchObject({ mode: 'NONE', active: false, arena_assignment: null });
    const about = before.tools.find((t: { name: string }) => t.name === 'identity_update_about');
    expect(about).toMatchObject({ available: false, group: 'Identity' });
    expect(about.why).toMatch(/inert until the owner activates/);
    expect(JSON.stringify(before.next_steps)).toContain(agent.agentId);
    expect(before.capability_map.Always).toMatchObject({ available: true });
    expect(before.capability_map.Identity).toMatchObject({ available: false });
    expect(before.limits.length).toBeGreaterThan(10);
    expect(before.budget).toMatchObject({ paid_actions_available: false });

    await identity().setMode(agent.agentId, 'READ');
    const { tools } = await client.listTools();
    // Reading, the way into campaigns (issue 5: any active identity may create or join one),
    // open pickup of tasks on public boards (issue 19), and skills (issue 20: on by default; the
    // library and attachment tools wait for a campaign).
    expect(tools.map((t) => t.name).sort()).toEqual([
      'campaign_create',
      'campaign_join',
      'campaign_list',
      'capabilities_describe',
      'citation_get',
      'diff_since',
      'evidence_get',
      'evidence_locate',
      'evidence_search',
      'evidence_view',
      'extract_json',
      'extract_table',
      'fetch_snapshot',
      'fetch_text',
      'identity_update_about',
      'identity_verify_domain',
      'identity_whoami',
      'policy_explain',
      'public_task_take',
      'public_task_work',
      'skill_draft_create',
      'skill_draft_file_put',
      'skill_draft_file_remove',
      'skill_draft_get',
      'skill_draft_update',
      'skill_draft_validate',
      'skill_file_bytes_get',
      'skill_file_get',
      'skill_get',
      'skill_list',
      'skill_package_get',
      'skill_usage_report',
      'skill_version_publish',
      'web_search',
    ]);
    const after = (await callTool(client, 'capabilities_describe')).body;
    expect(after).toMatchObject({ mode: 'READ', active: true, inactive_reason: null });
    await client.close();
  });

  it('calling a tool the caller cannot see is refused with the catalog error, not a silent success', async () => {
    const agent = await createAgent(identity());
    const client = await connectClient(server.url, agent.key);
    const { isError, body } = await callTool(client, 'identity_update_about', {
      model: 'm',
      idempotency_key: 'key-00000001',
    });
    expect(isError).toBe(true);
    expect(body).toMatchObject({
      status: 'ERROR',
      error: { code: 'TOOL_NOT_AVAILABLE', retryable: false, other_readers: 'WAIT_FOR_OWNER' },
    });
    const after = await identity().findAgent(agent.agentId);
    expect(after?.about.model).toBeUndefined();
    await client.close();
  });

  it('refuses an unknown tool and invalid arguments with clear codes', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const unknown = await callTool(client, 'no_such_tool');
    expect(unknown).toMatchObject({ isError: true, body: { error: { code: 'UNKNOWN_TOOL' } } });
    // Every refusal names the next move; a typo is answered with the tools it may have meant,
    // only among those this caller can call now.
    expect(unknown.body.error.next_action).toMatch(/tools\/list/);
    const typo = await callTool(client, 'fetch_txt');
    expect(typo.body.error.next_action).toMatch(/Did you mean fetch_text/);
    expect(typo.body.error.allowed_alternatives).toContainEqual(
      expect.objectContaining({ tool: 'fetch_text' }),
    );
    const inert = await connectClient(server.url, (await createAgent(identity(), { mode: 'NONE' })).key);
    const inertTypo = await callTool(inert, 'fetch_txt');
    expect(inertTypo.body.error.code).toBe('UNKNOWN_TOOL');
    expect(inertTypo.body.error.allowed_alternatives ?? []).not.toContainEqual(
      expect.objectContaining({ tool: 'fetch_text' }),
    );
    await inert.close();
    const invalid = await callTool(client, 'identity_update_about', { model: 'x', idempotency_key: 'short' });
    expect(invalid.isError).toBe(true);
    expect(invalid.body.error.code).toBe('VALIDATION_FAILED');
    expect(invalid.body.error.details.detail).toEqual([
      expect.objectContaining({ loc: ['arguments', 'idempotency_key'], type: 'too_small' }),
    ]);
    const extra = await callTool(client, 'identity_whoami', { surprise: 1 });
    expect(extra.body.error.code).toBe('VALIDATION_FAILED');
    await client.close();
  });

  it('serves the guide and the limits as resources', async () => {
    const agent = await createAgent(identity());
    const client = await connectClient(server.url, agent.key);
    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri).sort()).toEqual(['cairn://guide', 'cairn://limits']);
    const guide = await client.readResource({ uri: 'cairn://guide' });
    expect(guide.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect(String((guide.contents[0] as { text: string }).text)).toContain(`${server.url}/mcp`);
    const limits = await client.readResource({ uri: 'cairn://limits' });
    const parsed = JSON.parse(String((limits.contents[0] as { text: string }).text));
    expect(parsed.limits).toContainEqual(expect.objectContaining({ area: 'Quote for verification' }));
    await expect(client.readResource({ uri: 'cairn://nothing' })).rejects.toThrow(/No resource/);
    await client.close();
  });
});

describe('identity_update_about', () => {
  it('keeps good claims, drops bad ones with reasons, and asks the user', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const { isError, body } = await callTool(client, 'identity_update_about', {
      idempotency_key: 'about-0001',
      model: 'claude-sonnet',
      purpose: 'Literature review',
      contacts: ['ops@example.org', 'not a contact'],
      organization: 42,
    });
    expect(isError).toBe(false);
    expect(body.about_you).toMatchObject({
      label: 'CLAIMED_NOT_VERIFIED',
      model: 'claude-sonnet',
      purpose: 'Literature review',
      contacts: [],
      organization: null,
    });
    expect(body.about_you.ignored.map((i: { field: string }) => i.field).sort()).toEqual([
      'contacts',
      'organization',
    ]);
    expect(body.about_you.ask_user).toMatch(/contacts, organization|organization|contacts/);
    const whoami = await callTool(client, 'identity_whoami');
    expect(whoami.body.about_you.model).toBe('claude-sonnet');
    await client.close();
  });

  it('replays the first result for the same key and arguments, and refuses the key with other arguments', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const first = await callTool(client, 'identity_update_about', {
      idempotency_key: 'idem-0001',
      model: 'one',
    });
    clock.advance(5_000);
    const again = await callTool(client, 'identity_update_about', {
      idempotency_key: 'idem-0001',
      model: 'one',
    });
    expect(again).toEqual(first);
    // Byte for byte: the replay's text is the first answer's text, keys in the same order.
    const other = await connectClient(server.url, (await createAgent(identity(), { mode: 'READ' })).key);
    const text = async (args: Record<string, unknown>) => {
      const r = await other.callTool({ name: 'identity_update_about', arguments: args });
      return (r.content as Array<{ type: string; text: string }>)[0]?.text;
    };
    const firstText = await text({ idempotency_key: 'idem-0002', model: 'm', purpose: 'p', software: 's' });
    expect(firstText).toMatch(/"model"/);
    expect(await text({ idempotency_key: 'idem-0002', model: 'm', purpose: 'p', software: 's' })).toBe(
      firstText,
    );
    const reused = await callTool(client, 'identity_update_about', {
      idempotency_key: 'idem-0001',
      model: 'two',
    });
    expect(reused).toMatchObject({ isError: true, body: { error: { code: 'IDEMPOTENCY_KEY_REUSED' } } });
    expect((await identity().findAgent(agent.agentId))?.about.model).toBe('one');
    // A new key is a new action.
    const next = await callTool(client, 'identity_update_about', {
      idempotency_key: 'idem-0002',
      model: 'two',
    });
    expect(next.body.about_you.model).toBe('two');
    await client.close();
  });

  it('lets exactly one of several concurrent calls with one key act', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        callTool(client, 'identity_update_about', { idempotency_key: 'race-0001', software: `racer-${i}` }),
      ),
    );
    const winners = results.filter((r) => !r.isError);
    expect(winners).toHaveLength(1);
    expect(results.filter((r) => r.body.error?.code === 'IDEMPOTENCY_KEY_REUSED')).toHaveLength(5);
    const stored = await identity().findAgent(agent.agentId);
    expect(stored?.about.software).toBe(winners[0]?.body.about_you.software);
    await client.close();
  });

  it('merges concurrent updates of different claims without losing any', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const fields = { model: 'm', software: 's', organization: 'o', purpose: 'p' };
    const results = await Promise.all(
      Object.entries(fields).map(([field, value]) =>
        callTool(client, 'identity_update_about', { idempotency_key: `merge-${field}`, [field]: value }),
      ),
    );
    expect(results.every((r) => !r.isError)).toBe(true);
    expect(await identity().findAgent(agent.agentId)).toMatchObject({ about: fields });
    await client.close();
  });

  it('refuses arguments nested too deeply, with the envelope', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    let deep: unknown = 'bottom';
    for (let i = 0; i < 100; i++) deep = { d: deep };
    const { isError, body } = await callTool(client, 'identity_whoami', { deep });
    expect(isError).toBe(true);
    expect(body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { detail: [{ type: 'too_deep' }] },
    });
    await client.close();
    // Deeper than any stack: built as text, since the SDK client itself could not serialise it.
    const hostile = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"identity_whoami","arguments":{"x":${'['.repeat(20_000)}${']'.repeat(20_000)}}}}`;
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${agent.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: hostile,
    });
    expect(res.status).toBe(200);
    expect((await res.json()).result.structuredContent.error.code).toBe('VALIDATION_FAILED');
  });

  it('refuses credentials in arguments before any handler runs, and stores nothing', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const secret = newToken('prj');
    const { isError, body } = await callTool(client, 'identity_update_about', {
      idempotency_key: 'cred-0001',
      contacts: [`mailto me with ${secret}`],
    });
    expect(isError).toBe(true);
    expect(body.error).toMatchObject({
      code: 'CREDENTIAL_IN_INPUT',
      other_readers: 'DO_NOT_BYPASS',
      details: { path: 'contacts[0]', kind: 'CAIRN_TOKEN' },
    });
    expect(JSON.stringify(body)).not.toContain(secret);
    const jwt = await callTool(client, 'identity_whoami', {
      note: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop',
    });
    expect(jwt.body.error.code).toBe('CREDENTIAL_IN_INPUT');
    // Nothing was recorded under the key: the same key now works for a clean call.
    const clean = await callTool(client, 'identity_update_about', {
      idempotency_key: 'cred-0001',
      software: 'ok',
    });
    expect(clean.isError).toBe(false);
    expect(JSON.stringify(await identity().findAgent(agent.agentId))).not.toContain(secret);
    await client.close();
  });
});

describe('authentication on /mcp', () => {
  const expect401 = async (res: Response) => {
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(
      /^Bearer .*resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"/,
    );
    expect(await res.json()).toMatchObject({
      status: 'ERROR',
      error: { code: 'UNAUTHENTICATED', retryable: true },
    });
  };

  it('answers 401 UNAUTHENTICATED for a missing, malformed or unknown credential', async () => {
    const missing = await rpc(initialize());
    expect(missing.headers.get('www-authenticate')).not.toContain('error=');
    await expect401(missing);
    const wrong = await rpc(initialize(), { authorization: `Bearer ${newToken('prj')}` });
    expect(wrong.headers.get('www-authenticate')).toContain('error="invalid_token"');
    await expect401(await rpc(initialize(), { authorization: 'Basic abc' }));
    await expect401(await rpc(initialize(), { authorization: `Bearer ${newToken('prj')}` }));
  });

  it('refuses bootstrap tokens on /mcp', async () => {
    const res = await rpc(initialize(), { authorization: `Bearer ${newToken('boot')}` });
    expect(res.status).toBe(401);
    expect((await res.json()).error.message).toMatch(/bootstrap token cannot be used/);
  });

  it('refuses an expired project key', async () => {
    const agent = await createAgent(identity(), { days: 1 });
    expect((await rpc(initialize(), { authorization: `Bearer ${agent.key}` })).status).toBe(200);
    clock.advance(86_400_000 + 1_000);
    await expect401(await rpc(initialize(), { authorization: `Bearer ${agent.key}` }));
  });

  it('refuses a revoked project key on the very next request', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    expect((await callTool(client, 'identity_whoami')).isError).toBe(false);
    await identity().revokeProjectKey(agent.key);
    await expect(client.callTool({ name: 'identity_whoami', arguments: {} })).rejects.toThrow(
      /UNAUTHENTICATED/,
    );
  });

  it('refuses every key of a revoked identity at once', async () => {
    const agent = await createAgent(identity(), { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    await identity().revokeAgent(agent.agentId);
    await expect(client.listTools()).rejects.toThrow();
    // Its holder proved it has the key: it is told the identity is revoked and not to retry.
    const res = await rpc(initialize(), { authorization: `Bearer ${agent.key}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    expect(await res.json()).toMatchObject({
      status: 'ERROR',
      error: {
        code: 'UNAUTHENTICATED',
        retryable: false,
        details: { inactive_reason: 'REVOKED' },
        next_action: expect.stringContaining(agent.ownerEmail),
      },
    });
  });
});

describe('sessions live in the database', () => {
  it('issues a session id, negotiates older revisions, and ends the session on DELETE', async () => {
    const agent = await createAgent(identity());
    const auth = { authorization: `Bearer ${agent.key}` };
    const old = await rpc(initialize('2025-03-26'), auth);
    expect((await old.json()).result.protocolVersion).toBe('2025-03-26');
    const unknownVersion = await rpc(initialize('1999-01-01'), auth);
    expect((await unknownVersion.json()).result.protocolVersion).toBe('2025-11-25');

    const res = await rpc(initialize(), auth);
    const sessionId = res.headers.get('mcp-session-id');
    expect(sessionId).toMatch(/^ses_/);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list' };
    const headers = { ...auth, 'mcp-session-id': sessionId!, 'mcp-protocol-version': '2025-11-25' };
    expect((await rpc(list, headers)).status).toBe(200);

    const ended = await fetch(`${server.url}/mcp`, { method: 'DELETE', headers });
    expect(ended.status).toBe(204);
    const after = await rpc(list, headers);
    expect(after.status).toBe(404);
    expect((await after.json()).error.code).toBe('SESSION_NOT_FOUND');
  });

  it('opens no session for an initialize the SDK refused, and never answers 500 to odd client info', async () => {
    const agent = await createAgent(identity());
    const auth = { authorization: `Bearer ${agent.key}` };
    const oddInfo = await rpc(
      {
        ...initialize(),
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 5 } },
      },
      auth,
    );
    expect(oddInfo.status).toBeLessThan(500);
    const broken = await rpc(
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { nonsense: true } },
      auth,
    );
    expect(broken.status).toBe(200);
    expect((await broken.json()).error).toBeDefined();
    expect(broken.headers.get('mcp-session-id')).toBeNull();
    const asNotification = await rpc(
      { jsonrpc: '2.0', method: 'initialize', params: initialize().params },
      auth,
    );
    expect(asNotification.status).toBe(202);
    expect(asNotification.headers.get('mcp-session-id')).toBeNull();
  });

  it('refuses bodies over the 1 MiB limit with 413', async () => {
    const agent = await createAgent(identity());
    const res = await rpc(
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'identity_whoami', arguments: { pad: 'x'.repeat(1_100_000) } },
      },
      { authorization: `Bearer ${agent.key}` },
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it("does not let one identity use another's session", async () => {
    const a = await createAgent(identity());
    const b = await createAgent(identity());
    const res = await rpc(initialize(), { authorization: `Bearer ${a.key}` });
    const sessionId = res.headers.get('mcp-session-id')!;
    const stolen = await rpc(
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
      { authorization: `Bearer ${b.key}`, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    );
    expect(stolen.status).toBe(404);
  });

  it('lets a second server process continue a session the first one opened', async () => {
    const replica = await startTestServer({ clock, database: server.database });
    try {
      const agent = await createAgent(identity());
      const auth = { authorization: `Bearer ${agent.key}` };
      const sessionId = (await rpc(initialize(), auth)).headers.get('mcp-session-id')!;
      const res = await fetch(`${replica.url}/mcp`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': '2025-11-25',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 3,
          method: 'tools/call',
          params: { name: 'identity_whoami', arguments: {} },
        }),
      });
      expect(res.status).toBe(200);
      expect((await res.json()).result.structuredContent.agent_id).toBe(agent.agentId);
    } finally {
      await replica.close();
    }
  });

  it("sends an API's security headers, not a web page's, on answers and refusals alike", async () => {
    const agent = await createAgent(identity());
    const auth = { authorization: `Bearer ${agent.key}` };
    const answers = {
      direct: await rpc(
        { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'identity_whoami', arguments: {} } },
        auth,
      ),
      sdk: await rpc({ jsonrpc: '2.0', id: 2, method: 'ping' }, auth),
      unauthenticated: await rpc(initialize()),
      ended: await fetch(`${server.url}/mcp`, { method: 'DELETE', headers: auth }),
    };
    for (const [which, res] of Object.entries(answers)) {
      const headers = Object.fromEntries(res.headers);
      // OWASP's REST Security Cheat Sheet: the headers every API response should carry.
      expect(headers, which).toMatchObject({
        'cache-control': 'no-store',
        'content-security-policy': "frame-ancestors 'none'",
        'strict-transport-security': 'max-age=31536000; includeSubDomains',
        'x-content-type-options': 'nosniff',
        'x-frame-options': 'DENY',
      });
      // Helmet's page-only headers (which the rest of the server keeps) are not sent here.
      for (const pageOnly of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-dns-prefetch-control'])
        expect(headers[pageOnly], `${which}: ${pageOnly}`).toBeUndefined();
    }
    expect(answers.unauthenticated.status).toBe(401);
    expect(answers.ended.status).toBe(400);
  });

  it('answers ping', async () => {
    const agent = await createAgent(identity());
    const ping = await rpc(
      { jsonrpc: '2.0', id: 9, method: 'ping' },
      { authorization: `Bearer ${agent.key}` },
    );
    expect(await ping.json()).toEqual({ jsonrpc: '2.0', id: 9, result: {} });
  });

  it('answers a raw tools/call as the SDK would, and leaves malformed ones to the SDK', async () => {
    const agent = await createAgent(identity());
    const auth = { authorization: `Bearer ${agent.key}` };
    const call = (params: unknown, extra: Record<string, string> = {}) =>
      rpc({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params }, { ...auth, ...extra });
    const good = await call({ name: 'identity_whoami', arguments: {} });
    expect(good.status).toBe(200);
    expect(good.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = await good.json();
    expect(answer).toMatchObject({
      jsonrpc: '2.0',
      id: 'c1',
      result: { structuredContent: { agent_id: agent.agentId } },
    });
    expect(answer.result.content[0].type).toBe('text');
    // Params that do not fit tools/call (no name; arguments not an object): JSON-RPC's
    // -32602 Invalid params, said readably, and no result.
    const bad = await (await call({ arguments: {} })).json();
    expect(bad).toMatchObject({ jsonrpc: '2.0', id: 'c1', error: { code: -32602 } });
    expect(bad.error.message).toMatch(/params\.name/);
    expect(bad.result).toBeUndefined();
    for (const args of ['text', 42, [1, 2], null]) {
      const wrong = await (await call({ name: 'identity_whoami', arguments: args })).json();
      expect(wrong, JSON.stringify(args)).toMatchObject({
        jsonrpc: '2.0',
        id: 'c1',
        error: { code: -32602 },
      });
      expect(wrong.error.message).toMatch(/params\.arguments/);
      expect(wrong.error.message).not.toMatch(/"code":/);
    }
    // A body that is not JSON at all: the JSON-RPC parse error, with a null id.
    const garbled = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    });
    expect(garbled.status).toBe(400);
    expect(await garbled.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } });
    // Ids and keys the SDK's JSON-RPC schema refuses stay the SDK's.
    const fractional = await rpc(
      { jsonrpc: '2.0', id: 1.5, method: 'tools/call', params: { name: 'identity_whoami' } },
      auth,
    );
    expect(fractional.status).toBe(400);
    // Task metadata is ignored, as MCP asks of a server without the tasks capability: a normal answer.
    const task = await (await call({ name: 'identity_whoami', task: { ttl: 1000 } })).json();
    expect(task.result.structuredContent.agent_id).toBe(agent.agentId);
    // An unsupported protocol version header: the SDK's refusal, in Cairn's envelope.
    const old = await call({ name: 'identity_whoami' }, { 'mcp-protocol-version': '1999-01-01' });
    expect(old.status).toBe(400);
    // Without text/event-stream in Accept: refused as the SDK refuses it.
    const accept = await rpc(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'identity_whoami' } },
      { ...auth, accept: 'application/json' },
    );
    expect(accept.status).toBe(406);
  });
});

describe('rate limit on /mcp', () => {
  it('counts per identity and answers 429 RATE_LIMITED past the limit', async () => {
    const limited = await startTestServer({
      clock,
      database: server.database,
      env: { CAIRN_MCP_RATE_LIMIT: '3' },
    });
    try {
      const a = await createAgent(identity());
      const b = await createAgent(identity());
      const ping = (key: string) =>
        fetch(`${limited.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
        });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await ping(a.key)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const refused = await ping(a.key);
      expect((await refused.json()).error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
      expect((await ping(b.key)).status).toBe(200);
    } finally {
      await limited.close();
    }
  });
});
