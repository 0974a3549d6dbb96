import {
  Client as ClientV2,
  StreamableHTTPClientTransport as TransportV2,
} from '@modelcontextprotocol/client';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, type Member, newMember, ok } from '../support/campaigns.ts';
import { connectClient, createAgent, type TestAgent } from '../support/factories.ts';
import { grantedMailbox, smtpSender } from '../support/mail.ts';
import { applyTo, matchingMember, openCall } from '../support/matching.ts';
import {
  type Json,
  MODERN,
  modernHeaders,
  modernMeta,
  modernRequest,
  openListen,
  postModern,
} from '../support/mcp-modern.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { freePort, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * MCP 2026-07-28 on /mcp beside the 2025 revisions (issue 42 item 1): each request carries its
 * version and capabilities in `_meta`, no session exists, and the transport checks its headers
 * against the body. Everything here is what a client observes: status codes, JSON-RPC codes,
 * results, and what arrives on a listen stream when the owner changes something.
 */

let server: TestServer;
let replica: TestServer;
let agent: TestAgent;
const SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
const SUBSCRIPTION = 'io.modelcontextprotocol/subscriptionId';

let smtpPort: number;
/** A campaign `agent` is no member of. */
let campaignIdOfOther: string;

beforeAll(async () => {
  smtpPort = await freePort();
  // The built-in SMTP receiver, for the mailbox feed: mail arrives the way a sender sends it.
  server = await startTestServer({
    env: { CAIRN_MAIL_DOMAIN: 'mail.cairn.test', CAIRN_SMTP_PORT: String(smtpPort) },
  });
  // A second replica over the same database: a change made through one reaches listens on the other.
  replica = await startTestServer({ database: server.database });
  agent = await createAgent(server.app.services.identity, { mode: 'READ' });
  campaignIdOfOther = await campaignWith(await newMember(server), []);
});
afterAll(async () => {
  await replica?.close();
  await server?.close();
});

const post = (body: Json | string, headers: Record<string, string | undefined> = {}) =>
  postModern(server.url, agent.key, body, headers);

/** The same request as a 2025-11-25 client sends it (no `_meta`), answered by the SDK or the direct path. */
async function legacy(body: Json): Promise<Json> {
  const res = await fetch(`${server.url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${agent.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
    },
    body: JSON.stringify(body),
  });
  return (await res.json()) as Json;
}

function withoutMethod(headers: Record<string, string>): Record<string, string> {
  const { 'mcp-method': _method, ...rest } = headers;
  return rest;
}

describe('server/discover', () => {
  it('names the revisions served per request, the capabilities handled, and caching hints', async () => {
    const res = await post(modernRequest('d1', 'server/discover'));
    expect(res.status).toBe(200);
    expect(res.headers.get('mcp-session-id')).toBeNull();
    expect(res.body).toMatchObject({ jsonrpc: '2.0', id: 'd1' });
    const result = res.body!.result;
    expect(result.resultType).toBe('complete');
    expect(result.supportedVersions).toEqual([MODERN]);
    expect(result.capabilities).toEqual({
      tools: { listChanged: true },
      resources: { subscribe: true },
      // Skills are on by default: the Skills extension is declared (mcp-skills.test.ts).
      extensions: { 'io.modelcontextprotocol/skills': {} },
    });
    expect(result.instructions).toContain('capabilities_describe');
    expect(result.ttlMs).toBeGreaterThan(0);
    expect(Number.isInteger(result.ttlMs)).toBe(true);
    expect(result.cacheScope).toBe('public');
    expect(result._meta[SERVER_INFO]).toMatchObject({ name: 'Cairn', version: expect.any(String) });
  });

  it('needs no clientInfo, and is refused without a credential like any /mcp request', async () => {
    const body = modernRequest(1, 'server/discover');
    delete body.params._meta['io.modelcontextprotocol/clientInfo'];
    expect((await post(body)).status).toBe(200);
    const anonymous = await postModern(server.url, 'nope', body, { authorization: undefined });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toContain('resource_metadata=');
  });
});

describe('the envelope of a 2026-07-28 request', () => {
  const discover = (meta: Json | undefined, id: number | string = 7) => ({
    jsonrpc: '2.0',
    id,
    method: 'server/discover',
    params: meta === undefined ? {} : { _meta: meta },
  });

  it('answers missing or malformed _meta with 400 and -32602, for the request id', async () => {
    const full = modernMeta();
    const cases: Json[] = [
      discover(undefined),
      discover({ 'io.modelcontextprotocol/clientCapabilities': {} }),
      discover({ 'io.modelcontextprotocol/protocolVersion': MODERN }),
      discover({ ...full, 'io.modelcontextprotocol/clientCapabilities': 'all' }),
      discover({ ...full, 'io.modelcontextprotocol/protocolVersion': 20260728 }),
      discover({ ...full, 'io.modelcontextprotocol/logLevel': 'loud' }),
    ];
    for (const body of cases) {
      const res = await post(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toMatchObject({ id: 7, error: { code: -32602 } });
    }
  });

  it('refuses an unsupported version with -32022, naming the supported ones and the requested', async () => {
    const meta = { ...modernMeta(), 'io.modelcontextprotocol/protocolVersion': 'v999.0.0' };
    const res = await post(discover(meta), { 'mcp-protocol-version': 'v999.0.0' });
    expect(res.status).toBe(400);
    expect(res.body!.error).toMatchObject({
      code: -32022,
      data: { supported: [MODERN], requested: 'v999.0.0' },
    });
    expect(res.body!.error.message).toContain('2025-11-25');
  });

  it('refuses headers that disagree with the body with -32020 (HeaderMismatch)', async () => {
    const call = modernRequest(3, 'tools/call', { name: 'identity_whoami', arguments: {} });
    const mismatches: Array<[string, Json, Record<string, string | undefined>]> = [
      ['version header missing', call, { 'mcp-protocol-version': undefined }],
      ['version header differs from _meta', discover(modernMeta()), { 'mcp-protocol-version': '2099-01-01' }],
      ['Mcp-Method missing', call, { 'mcp-method': undefined }],
      ['Mcp-Method another method', call, { 'mcp-method': 'tools/list' }],
      ['Mcp-Method in another case', call, { 'mcp-method': 'TOOLS/CALL' }],
      ['Mcp-Name missing', call, { 'mcp-name': undefined }],
      ['Mcp-Name another tool', call, { 'mcp-name': 'fetch_text' }],
      [
        'Mcp-Name another resource',
        modernRequest(3, 'resources/read', { uri: 'cairn://guide' }),
        { 'mcp-name': 'cairn://limits' },
      ],
      ['Mcp-Name base64 without its padding', call, { 'mcp-name': '=?base64?aWRlbnRpdHlfd2hvYW0?=' }],
      ['Mcp-Name base64 with bad characters', call, { 'mcp-name': '=?base64?aWRl!!bnRpdHk=?=' }],
    ];
    for (const [what, body, headers] of mismatches) {
      const res = await post(body, headers);
      expect(res.status, what).toBe(400);
      expect(res.headers.get('content-type'), what).toContain('application/json');
      expect(res.body!.error.code, what).toBe(-32020);
      expect(res.body!.id, what).toBe(body.id);
    }
  });

  it('reads Mcp-Name with outer whitespace trimmed, base64-encoded, and header names in any case', async () => {
    const call = modernRequest(4, 'tools/call', { name: 'identity_whoami', arguments: {} });
    const encoded = `=?base64?${Buffer.from('identity_whoami').toString('base64')}?=`;
    for (const headers of [{ 'mcp-name': '  identity_whoami\t' }, { 'mcp-name': encoded }]) {
      const res = await post(call, headers);
      expect(res.status, JSON.stringify(headers)).toBe(200);
      expect(res.body!.result.isError).toBeUndefined();
    }
    // fetch sends header names as given; HTTP names are case-insensitive.
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { ...withoutMethod(modernHeaders(agent.key, call)), 'MCP-METHOD': 'tools/call' },
      body: JSON.stringify(call),
    });
    expect(res.status).toBe(200);
  });

  it('answers batches, ids that are not ids, and notifications as JSON-RPC over HTTP asks', async () => {
    const batch = await post(JSON.stringify([modernRequest(1, 'tools/list')]), {
      'mcp-method': 'tools/list',
    });
    expect(batch.status).toBe(400);
    expect(batch.body!.error.code).toBe(-32600);
    const nullId = await post({ ...modernRequest(1, 'tools/list'), id: null });
    expect(nullId.status).toBe(400);
    expect(nullId.body!.error.code).toBe(-32600);
    expect('id' in nullId.body!).toBe(false);
    const note = await post({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, _meta: modernMeta() },
    });
    expect(note.status).toBe(202);
    expect(note.body).toBeNull();
  });

  it('answers removed and undeclared methods with HTTP 404 and -32601', async () => {
    for (const method of [
      'initialize',
      'ping',
      'logging/setLevel',
      'resources/subscribe',
      'prompts/list',
      'completion/complete',
      'unknown/method',
    ]) {
      const res = await post(modernRequest(500, method));
      expect(res.status, method).toBe(404);
      expect(res.body, method).toMatchObject({ id: 500, error: { code: -32601 } });
    }
  });

  it('takes POST only: GET and DELETE of this revision get 405; a 2025 session is untouched', async () => {
    const headers = { authorization: `Bearer ${agent.key}`, 'mcp-protocol-version': MODERN };
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, {
        method,
        headers: { ...headers, accept: 'text/event-stream' },
      });
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow'), method).toBe('POST');
      expect((await res.json()).error.next_action).toContain('subscriptions/listen');
    }
    const old = await connectClient(server.url, agent.key);
    expect((await old.listTools()).tools.length).toBeGreaterThan(0);
    await old.close();
  });
});

describe('tools and resources, the same as a 2025 session sees them', () => {
  it('lists the same tools, with private caching hints', async () => {
    const modern = (await post(modernRequest(1, 'tools/list'))).body!.result;
    const old = (await legacy({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).result;
    expect(modern.resultType).toBe('complete');
    expect(modern.tools).toEqual(old.tools);
    expect(modern).toMatchObject({ cacheScope: 'private', ttlMs: expect.any(Number) });
    const paged = await post(modernRequest(2, 'tools/list', { cursor: 'abc' }));
    expect(paged.body!.error.code).toBe(-32602);
  });

  it('answers tools/call as a 2025 session does, with resultType and the server named', async () => {
    const calls: Json[] = [
      { name: 'identity_whoami', arguments: {} },
      { name: 'identity_whoami' },
      { name: 'fetch_text', arguments: { url: 5 } },
      { name: 'fetch_text', arguments: {} },
      { name: 'capabilities_describe', arguments: {} },
    ];
    for (const params of calls) {
      const modern = (await post(modernRequest(9, 'tools/call', params))).body!;
      const old = await legacy({ jsonrpc: '2.0', id: 9, method: 'tools/call', params });
      expect(modern.result.resultType, JSON.stringify(params)).toBe('complete');
      expect(modern.result._meta[SERVER_INFO].name).toBe('Cairn');
      const { resultType: _t, _meta, ...rest } = modern.result;
      const { [SERVER_INFO]: _info, ...ownMeta } = _meta;
      const normal = (v: unknown) => JSON.stringify(v).replace(/"(req|request_id)":"[^"]*"/g, '"$1":"-"');
      expect(normal({ ...rest, ...(Object.keys(ownMeta).length > 0 ? { _meta: ownMeta } : {}) })).toBe(
        normal(old.result),
      );
    }
  });

  it('names an unknown tool a protocol error (-32602), with the permitted moves in data', async () => {
    const res = await post(modernRequest(5, 'tools/call', { name: 'identity_whoamii', arguments: {} }));
    expect(res.status).toBe(200);
    expect(res.body!.error).toMatchObject({
      code: -32602,
      message: 'Unknown tool: identity_whoamii',
      data: { error: { code: 'UNKNOWN_TOOL', allowed_alternatives: [{ tool: 'identity_whoami' }] } },
    });
    const bad = await post(modernRequest(6, 'tools/call', { name: 'identity_whoami', arguments: [1] }));
    expect(bad.body!.error.code).toBe(-32602);
  });

  it('lists and reads its resources with caching hints, and an unknown one is -32602 with its URI', async () => {
    const list = (await post(modernRequest(1, 'resources/list'))).body!.result;
    expect(list.resources.map((r: Json) => r.uri)).toEqual(['cairn://guide', 'cairn://limits']);
    expect(list).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
    const templates = (await post(modernRequest(2, 'resources/templates/list'))).body!.result;
    expect(templates).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
    const read = (await post(modernRequest(3, 'resources/read', { uri: 'cairn://limits' }))).body!.result;
    const limits = JSON.parse(read.contents[0].text).limits as Json[];
    // The bound a listen is held to (21 URIs are refused below) is published with the rest.
    expect(limits.find((r) => r.area === 'MCP subscriptions')?.values).toEqual({
      uris_per_listen: 20,
      listens_per_identity: 10,
      subscriptions_per_session: 20,
    });
    expect(read).toMatchObject({ resultType: 'complete', ttlMs: expect.any(Number) });
    const missing = await post(modernRequest(4, 'resources/read', { uri: 'cairn://nothing' }));
    expect(missing.body!.error).toMatchObject({ code: -32602, data: { uri: 'cairn://nothing' } });
  });
});

describe('subscriptions/listen', () => {
  it('acknowledges first, and tells of a changed tool list, tagged with its id, from another replica', async () => {
    const member = await createAgent(server.app.services.identity, { mode: 'READ' });
    const token = await ownerTokenOf(server, member);
    const listen = await openListen(server.url, member.key, 'L-1', {
      toolsListChanged: true,
      promptsListChanged: true,
    });
    expect(listen.status).toBe(200);
    expect(listen.contentType).toContain('text/event-stream');
    const ack = await listen.next(() => true);
    expect(ack).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      // Prompts are not served, so the honoured subset leaves them out.
      params: { notifications: { toolsListChanged: true }, _meta: { [SUBSCRIPTION]: 'L-1' } },
    });
    const started = Date.now();
    const suspended = await ownerApi(replica, token, 'POST', `/v1/agents/${member.agentId}/suspend`, {
      reason: 'checking the listen stream',
    });
    expect(suspended.status).toBe(200);
    const changed = await listen.next((m) => m.method === 'notifications/tools/list_changed', 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(changed.params).toEqual({ _meta: { [SUBSCRIPTION]: 'L-1' } });
    listen.close();
  });

  it('sends only what was asked for, and nothing when the tool list did not change', async () => {
    const member = await createAgent(server.app.services.identity, { mode: 'READ' });
    const token = await ownerTokenOf(server, member);
    const quiet = await openListen(server.url, member.key, 2, { promptsListChanged: true });
    const ack = await quiet.next(() => true);
    expect(ack.params.notifications).toEqual({});
    const tools = await openListen(server.url, member.key, 3, { toolsListChanged: true });
    await tools.next(() => true);
    // READ to READ changes nothing a client lists; then a real change.
    await ownerApi(server, token, 'POST', `/v1/agents/${member.agentId}/mode`, { mode: 'READ' });
    await ownerApi(server, token, 'POST', `/v1/agents/${member.agentId}/mode`, { mode: 'NONE' });
    await tools.next((m) => m.method === 'notifications/tools/list_changed');
    expect(tools.messages.filter((m) => m.method === 'notifications/tools/list_changed')).toHaveLength(1);
    expect(quiet.messages).toHaveLength(1);
    quiet.close();
    tools.close();
  });

  it('ends when the credential it was opened with is revoked', async () => {
    const member = await createAgent(server.app.services.identity, { mode: 'READ' });
    const listen = await openListen(server.url, member.key, 4, { toolsListChanged: true });
    await listen.next(() => true);
    await server.app.services.identity.revokeProjectKey(member.key);
    await expect(
      Promise.race([
        listen.ended.then(() => 'ended'),
        new Promise((r) => setTimeout(() => r('open'), 2_000)),
      ]),
    ).resolves.toBe('ended');
  });

  it('holds at most 10 listens per identity: the eleventh ends the oldest with its response', async () => {
    const member = await createAgent(server.app.services.identity, { mode: 'READ' });
    const open = [];
    for (let i = 0; i < 10; i++) {
      const l = await openListen(server.url, member.key, `room-${i}`, { toolsListChanged: true });
      await l.next(() => true);
      open.push(l);
    }
    const eleventh = await openListen(server.url, member.key, 'room-10', { toolsListChanged: true });
    await eleventh.next(() => true);
    const ended = await open[0]!.next((m) => 'result' in m);
    expect(ended).toEqual({
      jsonrpc: '2.0',
      id: 'room-0',
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION]: 'room-0' } },
    });
    // The others are still open: nothing but their acknowledgement came.
    for (const l of open.slice(1)) expect(l.messages).toHaveLength(1);
    for (const l of [...open, eleventh]) l.close();
  });

  it('refuses a listen without its notifications filter', async () => {
    const res = await post(modernRequest(8, 'subscriptions/listen'));
    expect(res.status).toBe(400);
    expect(res.body!.error.code).toBe(-32602);
  });

  it('ends every listen with its own response when the server stops', async () => {
    const own = await startTestServer({ database: server.database });
    const listen = await openListen(own.url, agent.key, 'bye', { toolsListChanged: true });
    await listen.next(() => true);
    const closing = own.close();
    const last = await listen.next((m) => 'result' in m);
    expect(last).toEqual({
      jsonrpc: '2.0',
      id: 'bye',
      result: { resultType: 'complete', _meta: { [SUBSCRIPTION]: 'bye' } },
    });
    await closing;
  });
});

describe("a campaign's events as a feed", () => {
  let coordinator: Member;
  let worker: Member;
  let third: Member;
  let campaignId: string;
  const eventsUri = (id: string, cursor?: string) =>
    `cairn://campaigns/${id}/events${cursor ? `?cursor=${cursor}` : ''}`;
  const updated = (uri: string) => (m: Json) =>
    m.method === 'notifications/resources/updated' && m.params.uri === uri;

  beforeAll(async () => {
    // The coordinator works through the other replica: its writes reach this one's listens by NOTIFY.
    const lead = await createAgent(server.app.services.identity, { mode: 'READ' });
    coordinator = { ...lead, client: await connectClient(replica.url, lead.key) };
    worker = await newMember(server);
    third = await newMember(server);
    campaignId = await campaignWith(coordinator, [worker, third]);
  });

  it('is listed as a template, and discover says subscriptions are honoured', async () => {
    const templates = (await post(modernRequest(1, 'resources/templates/list'))).body!.result;
    expect(templates.resourceTemplates.map((t: Json) => t.uriTemplate)).toEqual([
      'cairn://campaigns/{campaign_id}/events{?cursor}',
      'cairn://campaigns/{campaign_id}/mail{?cursor}',
      'cairn://matching/requests{?cursor}',
    ]);
    const discover = (await post(modernRequest(2, 'server/discover'))).body!.result;
    expect(discover.capabilities.resources).toEqual({ subscribe: true });
  });

  it('wakes a member within a second of an event it may see, and never for one it may not', async () => {
    const uri = eventsUri(campaignId);
    const outsiderCampaign = await campaignWith(third, []);
    const listen = await openListen(server.url, worker.key, 'feed-1', {
      resourceSubscriptions: [
        uri,
        eventsUri(outsiderCampaign),
        'cairn://campaigns/cmp_nothing/events',
        'cairn://other',
      ],
    });
    const ack = await listen.next(() => true);
    // Only what the worker may follow is honoured; the others are left out alike.
    expect(ack.params.notifications).toEqual({ resourceSubscriptions: [uri] });
    // A direct message between two others is not the worker's to see: no wake-up.
    await ok(coordinator, 'message_send', {
      campaign_id: campaignId,
      to: third.agentId,
      type: 'NOTE',
      content: 'Only for you.',
    });
    await new Promise((r) => setTimeout(r, 400));
    expect(listen.messages.filter((m) => m.method === 'notifications/resources/updated')).toHaveLength(0);
    const started = Date.now();
    await ok(coordinator, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: 'For everyone.',
    });
    const woke = await listen.next(updated(uri), 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(woke.params._meta[SUBSCRIPTION]).toBe('feed-1');
    listen.close();
  });

  it('resumes from a cursor: a reconnect hears at once of what came meanwhile, and reads it', async () => {
    const asWorker = (body: Json) => postModern(server.url, worker.key, body);
    const read = await asWorker(modernRequest(3, 'resources/read', { uri: eventsUri(campaignId) }));
    const first = JSON.parse(read.body!.result.contents[0].text);
    expect(read.body!.result).toMatchObject({ cacheScope: 'private', ttlMs: 0 });
    expect(first.events.length).toBeGreaterThan(0);
    // The agent read up to here, then its stream dropped; an event came while it was away.
    await ok(coordinator, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: 'While you were away.',
    });
    const uri = eventsUri(campaignId, first.cursor);
    const listen = await openListen(server.url, worker.key, 'feed-2', { resourceSubscriptions: [uri] });
    await listen.next(updated(uri), 1_000);
    const again = await asWorker(modernRequest(4, 'resources/read', { uri }));
    const missed = JSON.parse(again.body!.result.contents[0].text);
    expect(missed.events).toHaveLength(1);
    expect(JSON.stringify(missed.events[0])).toContain('While you were away.');
    listen.close();
  });

  it("gives nothing of a campaign to a non-member, nor with another's cursor", async () => {
    // `agent` is no member of the campaign.
    const read = await post(modernRequest(5, 'resources/read', { uri: eventsUri(campaignId) }));
    expect(read.body!.error).toMatchObject({ code: -32602, data: { uri: eventsUri(campaignId) } });
    const own = await postModern(
      server.url,
      worker.key,
      modernRequest(6, 'resources/read', { uri: eventsUri(campaignId) }),
    );
    const cursor = JSON.parse(own.body!.result.contents[0].text).cursor;
    const foreign = await postModern(
      server.url,
      third.key,
      modernRequest(7, 'resources/read', { uri: eventsUri(campaignId, cursor) }),
    );
    expect(foreign.body!.error.code).toBe(-32602);
    const tooMany = await post(
      modernRequest(8, 'subscriptions/listen', {
        notifications: { resourceSubscriptions: Array.from({ length: 21 }, (_, i) => `cairn://x/${i}`) },
      }),
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body!.error.code).toBe(-32602);
  });
});

describe('the same feeds for a 2025 session (resources/subscribe, the GET stream)', () => {
  it('tells a v1 client of a new event on its notification stream, and stops after unsubscribe', async () => {
    const lead = await newMember(server);
    const follower = await createAgent(server.app.services.identity, { mode: 'READ' });
    const campaign = await campaignWith(lead, []);
    const client = await connectClient(server.url, follower.key);
    const member = { ...follower, client };
    await ok(member, 'campaign_join', { campaign_id: campaign });
    const uri = `cairn://campaigns/${campaign}/events`;
    const heard: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard.push(n.params.uri);
    });
    expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true });
    await client.subscribeResource({ uri });
    // Not a member: refused like an unknown resource.
    await expect(
      client.subscribeResource({ uri: `cairn://campaigns/${campaignIdOfOther}/events` }),
    ).rejects.toThrow(/No resource/);
    await new Promise((r) => setTimeout(r, 300));
    await ok(lead, 'message_append', { campaign_id: campaign, type: 'NOTE', content: 'Stream news.' });
    await expect.poll(() => heard, { timeout: 2_000 }).toEqual([uri]);
    await client.unsubscribeResource({ uri });
    await new Promise((r) => setTimeout(r, 300));
    await ok(lead, 'message_append', { campaign_id: campaign, type: 'NOTE', content: 'Unheard.' });
    await new Promise((r) => setTimeout(r, 500));
    expect(heard).toEqual([uri]);
    await client.close();
  });
});

describe('the bound of a 2025 session', () => {
  it('follows at most 20 resources: the 21st is refused, a repeat is not counted, and unsubscribing makes room', async () => {
    const lead = await newMember(server);
    const follower = await createAgent(server.app.services.identity, { mode: 'READ' });
    const client = await connectClient(server.url, follower.key);
    const member = { ...follower, client };
    const uris: string[] = [];
    for (let i = 0; i < 21; i++) {
      const campaign = await campaignWith(lead, []);
      await ok(member, 'campaign_join', { campaign_id: campaign });
      uris.push(`cairn://campaigns/${campaign}/events`);
    }
    for (const uri of uris.slice(0, 20)) await client.subscribeResource({ uri });
    // Subscribing again to one it follows changes nothing, so it does not count.
    await client.subscribeResource({ uri: uris[0]! });
    await expect(client.subscribeResource({ uri: uris[20]! })).rejects.toThrow(/at most 20 resources/);
    await client.unsubscribeResource({ uri: uris[0]! });
    await client.subscribeResource({ uri: uris[20]! });
    await client.close();
  });
});

describe("a campaign's mailbox as a feed", () => {
  it('wakes a granted member when mail arrives over SMTP, and nobody without the grant', async () => {
    const box = await grantedMailbox(server);
    const uri = `cairn://campaigns/${box.campaignId}/mail`;
    const ungranted = await newMember(server);
    await ok(ungranted, 'campaign_join', { campaign_id: box.campaignId });
    const refusedListen = await openListen(server.url, ungranted.key, 'm-0', {
      resourceSubscriptions: [uri],
    });
    expect((await refusedListen.next(() => true)).params.notifications).toEqual({
      resourceSubscriptions: [],
    });
    const listen = await openListen(server.url, box.coordinator.key, 'm-1', { resourceSubscriptions: [uri] });
    expect((await listen.next(() => true)).params.notifications).toEqual({ resourceSubscriptions: [uri] });
    const sent = await smtpSender(smtpPort).sendMail({
      from: 'alice@example.org',
      to: box.address,
      subject: 'Curlew sightings',
      text: 'Three on the north ridge.',
    });
    expect(sent.accepted).toEqual([box.address]);
    const woke = await listen.next((m) => m.method === 'notifications/resources/updated', 2_000);
    expect(woke.params).toEqual({ uri, _meta: { [SUBSCRIPTION]: 'm-1' } });
    const read = await postModern(
      server.url,
      box.coordinator.key,
      modernRequest(1, 'resources/read', { uri }),
    );
    const page = JSON.parse(read.body!.result.contents[0].text);
    expect(page.mails.map((m: Json) => m.subject)).toEqual(['Curlew sightings']);
    const denied = await postModern(server.url, ungranted.key, modernRequest(2, 'resources/read', { uri }));
    expect(denied.body!.error.code).toBe(-32602);
    expect(refusedListen.messages).toHaveLength(1);
    listen.close();
    refusedListen.close();
  });
});

describe('matching requests as a feed', () => {
  it('wakes a coordinator when an application arrives, only while its owner has matching on', async () => {
    const uri = 'cairn://matching/requests';
    const coordinator = await matchingMember(server);
    const campaign = await campaignWith(coordinator, [], { participation: 'APPLICATION' });
    const call = await openCall(server, coordinator, campaign, `moorland ${Date.now()}`);
    const applicant = await matchingMember(server);
    // Without the owner's consent there is nothing to follow.
    const outsider = await newMember(server);
    const refused = await openListen(server.url, outsider.key, 'x-0', { resourceSubscriptions: [uri] });
    expect((await refused.next(() => true)).params.notifications).toEqual({ resourceSubscriptions: [] });
    refused.close();
    // Where the coordinator had read up to, before the application.
    const before = (await ok(coordinator, 'matching_watch', { timeout_seconds: 1 }, false)).cursor as string;
    const listen = await openListen(server.url, coordinator.key, 'x-1', { resourceSubscriptions: [uri] });
    expect((await listen.next(() => true)).params.notifications).toEqual({ resourceSubscriptions: [uri] });
    const request = await applyTo(applicant, call);
    await listen.next((m) => m.method === 'notifications/resources/updated' && m.params.uri === uri, 2_000);
    const read = await postModern(
      server.url,
      coordinator.key,
      modernRequest(1, 'resources/read', { uri: `${uri}?cursor=${before}` }),
    );
    const changes = JSON.parse(read.body!.result.contents[0].text).changes as Json[];
    expect(changes.map((c) => c.matching_request_id)).toContain(request.matching_request_id);
    listen.close();
  });
});

describe('the official SDKs of both generations on one server', () => {
  it('a v2 client negotiates 2026-07-28, calls a tool and hears of a changed tool list', async () => {
    const member = await createAgent(server.app.services.identity, { mode: 'READ' });
    const token = await ownerTokenOf(server, member);
    const client = new ClientV2(
      { name: 'vitest-v2', version: '1.0.0' },
      { versionNegotiation: { mode: 'auto' } },
    );
    await client.connect(
      new TransportV2(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${member.key}` } },
      }),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toContain('identity_whoami');
    const whoami = await client.callTool({ name: 'identity_whoami', arguments: {} });
    expect((whoami.structuredContent as Json).agent_id).toBe(member.agentId);
    let heard = 0;
    client.setNotificationHandler('notifications/tools/list_changed', () => {
      heard++;
    });
    const subscription = await client.listen({ toolsListChanged: true });
    expect(subscription.honoredFilter).toEqual({ toolsListChanged: true });
    await ownerApi(server, token, 'POST', `/v1/agents/${member.agentId}/mode`, { mode: 'NONE' });
    await expect.poll(() => heard, { timeout: 2_000 }).toBe(1);
    await subscription.close();
    await client.close();
  });

  it('a v1 client on the same server keeps its 2025-11-25 session', async () => {
    const client = await connectClient(server.url, agent.key);
    const whoami = await client.callTool({ name: 'identity_whoami', arguments: {} });
    expect((whoami.structuredContent as Json).agent_id).toBe(agent.agentId);
    expect('resultType' in whoami).toBe(false);
    await client.close();
  });
});
