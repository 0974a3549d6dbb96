import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_STEPS } from '../../src/domains/discovery/demo.ts';
import { READING_LIMITS } from '../../src/domains/reading/index.ts';
import { FRAMEWORK_LIMITS } from '../../src/framework/index.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
const METRICS_TOKEN = 'metrics-token-0123456789';

beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_METRICS_TOKEN: METRICS_TOKEN } });
});
afterAll(async () => {
  await server?.close();
});

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { headers });

describe('public documents', () => {
  it('/health and /v1/status report the database', async () => {
    const health = await get('/health');
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });
    const ready = await get('/health/ready');
    expect(ready.status).toBe(200);
    const readyBody = await ready.json();
    expect(readyBody).toMatchObject({ status: 'ready', database: 'ok', listeners: { cairn_mcp: 'ok' } });
    expect(Object.values(readyBody.listeners)).not.toContain('down');
    const status = await (await get('/v1/status')).json();
    expect(status).toMatchObject({ service: 'cairn', version: '0.9.0', database: { healthy: true } });
    expect(status.database.kind).toBe(server.database.kind === 'pglite' ? 'embedded (PGlite)' : 'PostgreSQL');
    expect(status.uptime_seconds).toBeGreaterThanOrEqual(0);
  });

  it('/v1/public/limits serves the very numbers the code enforces', async () => {
    const { limits } = await (await get('/v1/public/limits')).json();
    const byArea = Object.fromEntries(limits.map((l: { area: string }) => [l.area, l]));
    expect(byArea['fetch_text / file windows'].values).toEqual({
      default_chars: READING_LIMITS.window.defaultChars,
      min_chars: 200,
      max_chars: 60_000,
    });
    expect(byArea['Campaign message content'].values).toEqual({ max_chars: 8000, max_bytes: 16384 });
    expect(byArea.idempotency_key.values.min_chars).toBe(FRAMEWORK_LIMITS.idempotencyKey.minChars);
    // Every row of SPEC's Limits table is published.
    const specAreas = [
      'Access token',
      'Refresh token',
      'OAuth connection',
      'Refresh duplicate retry window',
      'Public task entry',
      'Arena assignment',
      'fetch_text / file windows',
      'Quote for verification',
      'Campaign message content',
      'Report/appeal statement',
      'matching response_reason',
      'Matching profile',
      'events_watch wait',
      'campaign_mail_wait, matching_watch',
      'campaign_graph',
      'Mailbox',
      'Research imports',
      'STIX export',
      'Preview page',
      'task-choices limit',
      'public boards limit',
      'task_evidence limit',
      'Skills list parameters',
      'arena_reports limit',
      'Task time budget',
      'Spend cap',
    ];
    expect(Object.keys(byArea)).toEqual(expect.arrayContaining(specAreas));
    expect(Object.keys(byArea)).toEqual(
      expect.arrayContaining([
        'Access token',
        'Refresh token',
        'Arena assignment',
        'events_watch wait',
        'Matching profile',
      ]),
    );
  });

  it('/v1/public/errors is the code catalog', async () => {
    const body = await (await get('/v1/public/errors')).json();
    // The general codes, then each area's in the catalogue's area order (identity, reading, funds, campaigns).
    expect(body.errors.map((e: { code: string }) => e.code)).toEqual(PUBLISHED_ERROR_CODES);
    expect(body.errors).toContainEqual(
      expect.objectContaining({
        code: 'CREDENTIAL_IN_INPUT',
        other_readers: 'DO_NOT_BYPASS',
        retryable: false,
      }),
    );
    // SPEC Errors: invalid_client at the token endpoint, with the OAuth codes beside it.
    expect(body.oauth_errors).toContainEqual(
      expect.objectContaining({ code: 'invalid_client', where: expect.stringContaining('/oauth/token') }),
    );
    expect(body.oauth_errors.map((e: { code: string }) => e.code)).toEqual(
      expect.arrayContaining(['invalid_grant', 'authorization_pending', 'slow_down', 'expired_token']),
    );
  });

  it('/v1/public/tools lists tools by group as text, and with schemas as JSON', async () => {
    const text = await (await get('/v1/public/tools')).text();
    expect(text).toMatch(/## Always[\s\S]*identity_whoami[\s\S]*## Identity[\s\S]*identity_update_about/);
    const { tools, catalogue_fingerprint } = await (await get('/v1/public/tools?format=json')).json();
    const about = tools.find((t: { name: string }) => t.name === 'identity_update_about');
    expect(about).toMatchObject({
      group: 'Identity',
      mutates: true,
      visible_when: expect.stringContaining('active'),
    });
    expect(about.input_schema.required).toEqual(['idempotency_key']);
    expect(about.input_schema.additionalProperties).toBe(false);
    expect(tools.find((t: { name: string }) => t.name === 'identity_whoami')).toMatchObject({
      mutates: false,
    });
    expect(catalogue_fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/);
    const bad = await get('/v1/public/tools?format=xml');
    expect(bad.status).toBe(422);
    const err = await bad.json();
    expect(err.detail[0]).toMatchObject({ loc: ['querystring', 'format'], type: 'invalid_value' });
    expect(err.error.code).toBe('VALIDATION_FAILED');
  });

  it('the tool list over MCP is the same definition as the public reference', async () => {
    const agent = await createAgent(server.app.services.identity, { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const { tools: mcpTools } = await client.listTools();
    const { tools } = await (await get('/v1/public/tools?format=json')).json();
    for (const t of mcpTools) {
      const doc = tools.find((d: { name: string }) => d.name === t.name);
      expect(t.inputSchema).toEqual(doc.input_schema);
      expect(t.description).toBe(doc.description);
    }
    await client.close();
  });

  it('/v1/public/terms, /guide, /llms.txt and the server card have real content', async () => {
    const terms = await (await get('/v1/public/terms')).json();
    expect(terms.sections.length).toBeGreaterThan(3);
    const guide = await get('/guide');
    expect(guide.headers.get('content-type')).toContain('text/markdown');
    const guideText = await guide.text();
    for (const heading of ['Project key', 'Device pairing', 'Native OAuth', 'First calls']) {
      expect(guideText).toContain(heading);
    }
    expect(guideText).toContain(`${server.url}/mcp`);
    const llms = await (await get('/llms.txt')).text();
    expect(llms).toMatch(/^# Cairn\n\n> .+\n/);
    expect(llms).toContain(`- [Connection guide](${server.url}/guide)`);
    const card = await (await get('/.well-known/mcp.json')).json();
    expect(card).toMatchObject({
      name: 'Cairn',
      version: '0.9.0',
      endpoint: `${server.url}/mcp`,
      transport: 'streamable-http',
      authentication: expect.arrayContaining([
        expect.objectContaining({ type: 'bearer', token_prefix: 'cd_prj_' }),
        expect.objectContaining({
          type: 'oauth2-device',
          endpoint: `${server.url}/oauth/device_authorization`,
        }),
      ]),
    });
    expect(card.protocol_versions.slice(0, 2)).toEqual(['2026-07-28', '2025-11-25']);
    expect(card.tool_groups.map((g: { group: string }) => g.group)).toEqual([
      'Always',
      'Read',
      'Campaigns',
      'Arena',
      'Matching',
      'Open pickup',
      'Skills',
      'Identity',
      'Workspace tools',
    ]);
  });

  it('/v1/public/stats counts live records', async () => {
    const before = await (await get('/v1/public/stats')).json();
    await createAgent(server.app.services.identity, { mode: 'READ' });
    const after = await (await get('/v1/public/stats')).json();
    expect(after.agent_identities).toBeGreaterThanOrEqual(before.agent_identities + 1);
    expect(after.active_identities).toBeGreaterThanOrEqual(before.active_identities + 1);
    expect(after.owners).toBeGreaterThanOrEqual(before.owners + 1);
  });

  it('/updates.json has a strong ETag and answers 304 to If-None-Match', async () => {
    const first = await get('/updates.json');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const body = await first.json();
    expect(body.entries.length).toBeGreaterThan(0);
    expect(body.catalogue_fingerprint).toMatch(/^sha256:/);
    const again = await get('/updates.json', { 'if-none-match': etag! });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect((await get('/updates.json', { 'if-none-match': '"stale"' })).status).toBe(200);
  });

  it('/openapi.json is generated from the routes, version 0.9.0', async () => {
    const doc = await (await get('/openapi.json')).json();
    expect(doc.info.version).toBe('0.9.0');
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/health', '/v1/public/tools', '/mcp']));
    expect(doc.paths['/v1/public/tools'].get.parameters[0]).toMatchObject({ name: 'format', in: 'query' });
    // Each operation says what it really answers (issue 39): its success status, refusals with
    // the envelope, 422 with HTTPValidationError where input is validated.
    const tools = doc.paths['/v1/public/tools'].get.responses;
    expect(Object.keys(tools)).toEqual(expect.arrayContaining(['200', '4XX', '422', '503']));
    expect(tools['4XX'].content['application/json'].schema.properties.error.required).toContain(
      'next_action',
    );
    expect(tools['422'].content['application/json'].schema.title).toBe('HTTPValidationError');
    const created = doc.paths['/v1/owner/tokens']?.post ?? doc.paths['/oauth/register'].post;
    expect(Object.keys(created.responses)).toContain('201');
    expect(Object.keys(created.responses)).not.toContain('200');
    const register = doc.paths['/oauth/register'].post.responses;
    expect(register['4XX'].content['application/json'].schema.required).toEqual(['error']);
    const everyOne = Object.values(doc.paths).flatMap((ops) =>
      Object.values(ops as Record<string, { responses: object }>),
    );
    expect(everyOne.every((op) => Object.keys(op.responses).some((code) => /^2\d\d$/.test(code)))).toBe(true);
    expect(everyOne.every((op) => !Object.keys(op.responses).includes('default'))).toBe(true);
  });
});

describe('HTTP conventions', () => {
  it('answers unknown paths with a JSON 404 envelope', async () => {
    const res = await get('/nope');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({
      status: 'ERROR',
      error: { code: 'NOT_FOUND', retryable: false },
    });
  });

  it('sets a request id and security headers', async () => {
    const res = await get('/health');
    expect(res.headers.get('x-request-id')).toMatch(/^req_/);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect((await get('/health', { 'x-request-id': 'trace-123' })).headers.get('x-request-id')).toBe(
      'trace-123',
    );
  });

  it('refuses malformed JSON with the JSON-RPC parse error, and wrong media types with the envelope', async () => {
    const agent = await createAgent(server.app.services.identity);
    const headers = { authorization: `Bearer ${agent.key}`, accept: 'application/json, text/event-stream' };
    const broken = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: '{"jsonrpc":',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.stringMatching(/^Parse error/) },
    });
    const text = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(415);
    expect((await text.json()).error.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const noAccept = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: headers.authorization, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    expect(noAccept.status).toBe(406);
    expect((await noAccept.json()).error.code).toBe('NOT_ACCEPTABLE');
  });
});

describe('/metrics', () => {
  it('is served only to the configured bearer, with request and tool figures', async () => {
    const agent = await createAgent(server.app.services.identity);
    const client = await connectClient(server.url, agent.key);
    await callTool(client, 'identity_whoami');
    await client.close();
    expect((await get('/metrics')).status).toBe(401);
    expect((await get('/metrics', { authorization: 'Bearer wrong-token-0123456789' })).status).toBe(401);
    const res = await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(
      /cairn_http_request_duration_seconds_count\{method="POST",route="\/mcp",status="200"\} \d+/,
    );
    expect(text).toMatch(
      /cairn_tool_call_duration_seconds_count\{tool="identity_whoami",outcome="ok"\} [1-9]/,
    );
    expect(text).toMatch(/cairn_database_up\{kind="(pglite|postgres)"\} 1/);
  });

  it('does not exist when no token is configured', async () => {
    const plain = await startTestServer();
    try {
      expect((await fetch(`${plain.url}/metrics`)).status).toBe(404);
    } finally {
      await plain.close();
    }
  });
});

describe('rate limits on public routes', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the limit', async () => {
    const limited = await startTestServer({ env: { CAIRN_PUBLIC_RATE_LIMIT: '3' } });
    try {
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await fetch(`${limited.url}/v1/public/limits`)).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const res = await fetch(`${limited.url}/guide`);
      expect(res.status).toBe(429);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = await res.json();
      expect(body.error).toMatchObject({ code: 'RATE_LIMITED', retryable: true });
      expect(body.error.details.retry_after_seconds).toBeGreaterThan(0);
      const { limits } = await (await fetch(`${server.url}/v1/public/limits`)).json();
      expect(limits).toContainEqual(expect.objectContaining({ area: 'Public (no token) routes' }));

      // The mail callbacks are limited per address too (counted apart); refusals past the limit
      // are not recorded, so a flood writes nothing.
      const posts = [];
      for (let i = 0; i < 4; i++) {
        const res = await fetch(`${limited.url}/v1/mailgun/inbound/json`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: 'recipient=x%40mail.test',
        });
        posts.push(res.status);
        if (res.status === 429) {
          expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
          expect((await res.json()).error).toMatchObject({ code: 'RATE_LIMITED' });
        }
      }
      expect(posts).toEqual([404, 404, 404, 429]);
    } finally {
      await limited.close();
    }
  });

  it('counts the forwarded client address only when told to trust the proxy', async () => {
    const behindProxy = await startTestServer({
      env: { CAIRN_PUBLIC_RATE_LIMIT: '2', CAIRN_TRUST_PROXY: '1' },
    });
    const direct = await startTestServer({ env: { CAIRN_PUBLIC_RATE_LIMIT: '2' } });
    try {
      const hit = (url: string, client: string) =>
        fetch(`${url}/v1/public/terms`, { headers: { 'x-forwarded-for': client } }).then((r) => r.status);
      const proxied = [await hit(behindProxy.url, '203.0.113.1'), await hit(behindProxy.url, '203.0.113.1')];
      expect([...proxied, await hit(behindProxy.url, '203.0.113.1')]).toEqual([200, 200, 429]);
      expect(await hit(behindProxy.url, '203.0.113.2')).toBe(200);
      // Without trust, a client cannot pick a fresh address per request to escape the limit.
      const spoofed = [];
      for (let i = 0; i < 3; i++) spoofed.push(await hit(direct.url, `198.51.100.${i}`));
      expect(spoofed).toEqual([200, 200, 429]);
    } finally {
      await behindProxy.close();
      await direct.close();
    }
  });
});

/** Every code /v1/public/errors publishes, in its order. */
const PUBLISHED_ERROR_CODES = [
  ...[
    'UNAUTHENTICATED',
    'INSUFFICIENT_SCOPE',
    'TOOL_NOT_AVAILABLE',
    'UNKNOWN_TOOL',
    'VALIDATION_FAILED',
    'CREDENTIAL_IN_INPUT',
  ],
  ...['IDEMPOTENCY_KEY_REUSED', 'NOT_FOUND', 'METHOD_NOT_ALLOWED', 'SESSION_NOT_FOUND', 'PAYLOAD_TOO_LARGE'],
  ...['NOT_ACCEPTABLE', 'UNSUPPORTED_MEDIA_TYPE', 'HOST_NOT_ALLOWED', 'ORIGIN_NOT_ALLOWED', 'BAD_REQUEST'],
  ...['RATE_LIMITED', 'CONFLICT', 'DEGRADED_MODE'],
  ...['CURSOR_INVALID', 'REQUEST_TIMEOUT', 'SERVICE_UNAVAILABLE', 'INTERNAL'],
  ...['SIGNUP_CLOSED', 'SIGNIN_FAILED', 'SIGNIN_THROTTLED', 'CONSOLE_SESSION_REQUIRED'],
  ...['NESTED_UNWRAP', 'REDIRECT_OUT_OF_SCOPE', 'ADDRESS_NOT_PUBLIC', 'URL_NOT_ALLOWED', 'SIGN_IN_SURFACE'],
  ...['APP_SHELL', 'ROBOTS_DISALLOWED', 'UNSUPPORTED_CONTENT', 'CONTENT_TOO_LARGE', 'DOCUMENT_TOO_COMPLEX'],
  'TOO_MANY_REDIRECTS',
  ...['UPSTREAM_UNAVAILABLE', 'UPSTREAM_HTTP_ERROR', 'SEARCH_NOT_CONFIGURED', 'SEARCH_FAILED'],
  ...['INSUFFICIENT_FUNDS', 'OPERATOR_REQUIRED'],
  ...['CAMPAIGN_REQUIRED', 'NOT_A_MEMBER', 'ROLE_REQUIRED', 'CAMPAIGN_CLOSED', 'CAMPAIGN_STOPPING'],
  'OWNER_APPROVAL_PENDING',
  ...['TASK_ALREADY_CLAIMED', 'TASK_NOT_CLAIMABLE', 'INCOMPLETE', 'LEASE_REQUIRED', 'LEASE_AMBIGUOUS'],
  ...[
    'LEASE_NOT_CURRENT',
    'VERSION_CONFLICT',
    'TASK_NOT_EDITABLE',
    'TASK_NOT_LISTABLE',
    'PUBLIC_ENTRY_ENDED',
    'ACTION_NOT_ALLOWED',
    'EVIDENCE_REQUIRED',
    'RECIPIENT_NOT_MEMBER',
  ],
  ...[
    'RECIPIENT_CANNOT_SEE',
    'SELF_REVIEW',
    'SAME_OWNER_REVIEW',
    'ALREADY_REVIEWED',
    'QUOTE_NOT_IN_EVIDENCE',
  ],
  ...['REPORT_NOT_PUBLIC', 'PROPOSAL_NOT_OPEN', 'REWARD_NOT_FUNDED', 'REWARD_OVER_LIMIT', 'NO_REWARD'],
  ...['REWARD_NOT_RELEASABLE', 'MAIL_ACCESS_REQUIRED', 'APPROVAL_NOT_PENDING'],
  ...['MATCHING_REQUEST_OPEN', 'MATCHING_REQUEST_ENDED', 'MATCHING_NOT_YOUR_TURN', 'MATCHING_BLOCKED'],
  ...['SKILLS_DISABLED', 'SKILL_DRAFT_REVISION_STALE', 'SKILL_DRAFT_INVALID', 'SKILL_CONTEXT_DENIED'],
  ...['SKILL_BLOCKED', 'SKILL_BYTES_DELETED', 'SKILL_ARCHIVED', 'SKILL_READ_REQUIRED', 'SKILL_FILE_BINARY'],
  'SKILL_NOT_USED_IN_RUN',
  ...['SCORE_SIGNATURE_INVALID', 'ARENA_NOT_ENABLED', 'ARENA_ASSIGNMENT_CURRENT', 'ARENA_ASSIGNMENT_EXPIRED'],
  ...['ARENA_RUN_ACTIVE', 'ARENA_RUN_ENDED', 'ARENA_TOOL_NOT_ALLOWED'],
  ...['WORKSPACE_LIMIT', 'WORKSPACE_CHANGED', 'ARENA_NOT_REVIEWER', 'ARENA_SAME_REVIEWER'],
  'ARENA_OWN_RUN',
  ...['SUPERCHALLENGE_PENDING_LIMIT', 'SUPERCHALLENGE_OWN_PROPOSAL'],
];

describe('worked research cases (issue 16 item 7)', () => {
  it('describe each flow with calls the catalogue has, arguments it takes, and are linked', async () => {
    const { tools } = await (await get('/v1/public/tools?format=json')).json();
    const byName = new Map(tools.map((t: { name: string }) => [t.name, t]));
    for (const path of ['/v1/public/security-research-case', '/v1/public/research-case']) {
      const doc = await (await get(path)).json();
      expect(doc.steps.length).toBeGreaterThan(3);
      for (const step of doc.steps) {
        if (step.kind === 'HTTP') continue;
        const tool = byName.get(step.call) as { input_schema: { properties: Record<string, unknown> } };
        expect(tool, step.call).toBeDefined();
        for (const arg of Object.keys(step.arguments))
          expect(tool.input_schema.properties).toHaveProperty(arg);
      }
    }
    const security = await (await get('/v1/public/security-research-case')).json();
    expect(security.steps.map((s: { call: string }) => s.call)).toEqual([
      'POST /v1/research/imports',
      'evidence_locate',
      'finding_create',
      'finding_review',
      'research_export_stix',
      'POST /v1/research/campaigns/<campaign_id>/stix',
    ]);
    const llms = await (await get('/llms.txt')).text();
    expect(llms).toContain('/v1/public/security-research-case');
    expect(llms).toContain('/v1/public/research-case');
  });
});

describe('connection documents and the guide for browsers (issue 15 item 2)', () => {
  it('/v1/public/connection gives a ready configuration per client, keys kept out of files', async () => {
    const dflt = await (await get('/v1/public/connection')).json();
    expect(dflt).toMatchObject({
      runtime: 'claude-code',
      client: 'Claude Code',
      mcp_url: `${server.url}/mcp`,
    });
    const file = dflt.setup.find((s: { path?: string }) => s.path === '.mcp.json');
    expect(file.content.mcpServers.cairn).toEqual({
      type: 'http',
      url: `${server.url}/mcp`,
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Claude Code's own expansion, meant literally
      headers: { Authorization: 'Bearer ${CAIRN_PROJECT_KEY}' },
    });
    expect(dflt.deny_other_web).toMatchObject({ requested: false });

    const denied = await (await get('/v1/public/connection?runtime=claude-code&deny_other_web=true')).json();
    expect(denied.deny_other_web).toMatchObject({ requested: true, applied_by_setting: true });
    expect(denied.deny_other_web.steps[0]).toMatchObject({
      path: '.claude/settings.json',
      content: { permissions: { deny: ['WebFetch', 'WebSearch'] } },
    });
    const codex = await (await get('/v1/public/connection?runtime=codex&deny_other_web=true')).json();
    expect(codex.setup[0].content).toContain(`url = "${server.url}/mcp"`);
    expect(codex.deny_other_web.steps[0].content).toBe('web_search = "disabled"\n');
    // A client with no file setting for it says so, rather than pretending.
    const cursor = await (await get('/v1/public/connection?runtime=cursor&deny_other_web=true')).json();
    expect(cursor.deny_other_web).toMatchObject({ applied_by_setting: false, steps: [{ kind: 'manual' }] });

    const unknown = await get('/v1/public/connection?runtime=emacs');
    expect(unknown.status).toBe(422);
    expect(JSON.stringify(await unknown.json())).toContain('claude-code');
  });

  it('/guide is Markdown for agents and HTML for a browser, and both link the connection document', async () => {
    const md = await get('/guide');
    expect(md.headers.get('content-type')).toContain('text/markdown');
    expect(md.headers.get('vary')).toContain('Accept');
    expect(await md.text()).toContain('/v1/public/connection?runtime=claude-code');
    const html = await get('/guide', { accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.8' });
    expect(html.headers.get('content-type')).toContain('text/html');
    const page = await html.text();
    expect(page).toMatch(/^<!doctype html>/);
    expect(page).toContain('<h1>Connecting an agent to Cairn</h1>');
    expect(page).toContain(`<a href="${server.url}/v1/public/tools">`);
    expect(page).not.toContain('<script');
    expect(await (await get('/llms.txt')).text()).toContain('/v1/public/connection');
  });

  it('/v1/public/demo describes the demo with the very steps it runs', async () => {
    const demo = await (await get('/v1/public/demo')).json();
    expect(demo).toMatchObject({ command: 'npm run demo', source: 'src/demo.ts' });
    expect(demo.steps.map((s: { call: string }) => s.call)).toEqual(DEMO_STEPS.map((s) => s.call));
  });

  it('/examples/browser/{name} serves the example pages and their scripts, and names them when unknown', async () => {
    const html = await get('/examples/browser/tool-call');
    expect(html.headers.get('content-type')).toContain('text/html');
    expect(await html.text()).toContain(
      '<script type="module" src="/examples/browser/tool-call.js"></script>',
    );
    const js = await get('/examples/browser/common.js');
    expect(js.headers.get('content-type')).toContain('text/javascript');
    const unknown = await get('/examples/browser/nope');
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.details.examples).toEqual(['pairing', 'tool-call', 'events-watch']);
    expect(await (await get('/guide')).text()).toContain('/examples/browser/pairing');
  });
});
