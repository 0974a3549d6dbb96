import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { csrfOf, errorOf, secretOf, Visitor } from '../support/console-visitor.ts';
import { callTool, connectClient, mcpInitialize, uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
const clock = new FakeClock(new Date());

beforeAll(async () => {
  server = await startTestServer({ clock, env: { CAIRN_TRUST_PROXY: 'true', CAIRN_OPEN_SIGNUP: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

async function owner() {
  const v = new Visitor(server.url);
  expect((await v.signUp(uniqueEmail())).status).toBe(303);
  return v;
}

/** Creates an identity through the console form; returns its id and the bootstrap token shown once. */
async function createIdentity(v: Visitor, name = 'Lab assistant', days = '3') {
  const res = await v.submit('/console/identities/new', '/console/identities/new', {
    display_name: name,
    runtime: 'claude-code',
    days,
  });
  expect(res.status).toBe(201);
  const agentId = /<code>(agt_[0-9A-Z]{26})<\/code>/.exec(res.text)?.[1];
  return { agentId: agentId!, token: secretOf(res.text, 'cd_boot_'), page: res };
}

async function exchange(bootstrap: string) {
  const res = await fetch(`${server.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_secret: bootstrap }).toString(),
  });
  return { status: res.status, body: await res.json() };
}

/** 200 when the credential works on /mcp, 401 when it does not. */
const mcpStatus = async (bearer: string) => (await mcpInitialize(server.url, bearer)).status;

const toolNames = async (client: Awaited<ReturnType<typeof connectClient>>) =>
  (await client.listTools()).tools.map((t) => t.name).sort();

/** Posts a form from an identity's own page, with that page's CSRF token. */
const act = (v: Visitor, agentId: string, suffix: string, fields: Record<string, string> = {}) =>
  v.submit(`/console/identities/${agentId}`, `/console/identities/${agentId}/${suffix}`, fields);

describe('console identity pages', () => {
  it('creates an identity whose bootstrap token is shown once and exchanges for a working access token', async () => {
    const v = await owner();
    const { agentId, token, page } = await createIdentity(v, 'Lab assistant', '3');
    expect(token).toMatch(/^cd_boot_/);
    const expiry = new Date(clock.now().getTime() + 3 * 86_400_000)
      .toISOString()
      .slice(0, 16)
      .replace('T', ' ');
    expect(page.text).toContain(`${expiry} UTC`);
    expect(page.text).toContain('shown only this once');
    // Shown once: neither the identity page nor the list carries it again.
    expect((await v.get(`/console/identities/${agentId}`)).text).not.toContain(token!);
    expect((await v.get('/console')).text).not.toContain(token!);

    const { status, body } = await exchange(token!);
    expect(status).toBe(200);
    expect(body).toMatchObject({ token_type: 'Bearer', agent_id: agentId, expires_in: 3600 });
    expect(body.access_token).toMatch(/^cd_acc_/);
    expect(body.refresh_token).toBeUndefined();
    expect(await mcpStatus(body.access_token)).toBe(200);
    expect(await mcpStatus(token!)).toBe(401);
  });

  it('activation changes the connected agent’s tools/list at once; deactivation and rename too', async () => {
    const v = await owner();
    const { agentId, token } = await createIdentity(v);
    const { body } = await exchange(token!);
    const client = await connectClient(server.url, body.access_token);
    expect(await toolNames(client)).toEqual(['capabilities_describe', 'identity_whoami']);

    const list = await v.get('/console');
    expect(list.text).toContain('Lab assistant');
    expect(list.text).toContain(agentId);
    expect(list.text).toContain('1 session');

    const activated = await act(v, agentId, 'mode', { mode: 'READ' });
    expect(activated.status).toBe(303);
    expect(await toolNames(client)).toContain('identity_update_about');
    const page = await v.get(activated.location!);
    expect(page.text).toContain('Public reading is active');
    expect(page.text).toContain('Deactivate');

    expect((await act(v, agentId, 'mode', { mode: 'NONE' })).status).toBe(303);
    expect(await toolNames(client)).toEqual(['capabilities_describe', 'identity_whoami']);

    expect((await act(v, agentId, 'rename', { display_name: 'Reviewer <b>bot</b>' })).status).toBe(303);
    const whoami = await callTool(client, 'identity_whoami');
    expect(whoami.body.display_name).toBe('Reviewer <b>bot</b>');
    const renamed = await v.get(`/console/identities/${agentId}`);
    expect(renamed.text).toContain('Reviewer &lt;b&gt;bot&lt;/b&gt;');
    expect(renamed.text).not.toContain('<b>bot</b>');

    const tooLong = await act(v, agentId, 'rename', { display_name: 'x'.repeat(121) });
    expect(tooLong.status).toBe(422);
    expect(errorOf(tooLong.text)).toMatch(/at most 120/);
    expect((await callTool(client, 'identity_whoami')).body.display_name).toBe('Reviewer <b>bot</b>');
    await client.close();
  });

  it('creates, lists and revokes project keys; a revoked key fails on the very next request', async () => {
    const v = await owner();
    const { agentId } = await createIdentity(v);
    const created = await act(v, agentId, 'keys', { days: '10' });
    expect(created.status).toBe(201);
    const key = secretOf(created.text, 'cd_prj_');
    expect(key).toMatch(/^cd_prj_/);
    const expiry = new Date(clock.now().getTime() + 10 * 86_400_000)
      .toISOString()
      .slice(0, 16)
      .replace('T', ' ');
    expect(created.text).toContain(`${expiry} UTC`);
    const keyId = /<code>(key_[0-9A-Z]{26})<\/code>/.exec(created.text)?.[1];
    expect(keyId).toBeDefined();
    expect(await mcpStatus(key!)).toBe(200);
    expect((await v.get(`/console/identities/${agentId}`)).text).not.toContain(key!);

    for (const days of ['0', '366', 'ten', '']) {
      const bad = await act(v, agentId, 'keys', { days });
      expect(bad.status).toBe(422);
      expect(secretOf(bad.text, 'cd_prj_')).toBeNull();
    }
    const page = await v.get(`/console/identities/${agentId}`);
    expect(page.text.match(/<code>key_/g)).toHaveLength(1);

    const revoked = await act(v, agentId, `keys/${keyId}/revoke`);
    expect(revoked.status).toBe(303);
    expect(await mcpStatus(key!)).toBe(401);
    const again = await act(v, agentId, `keys/${keyId}/revoke`);
    expect(again.status).toBe(409);
    expect(errorOf(again.text)).toMatch(/already revoked/);
  });

  it('replaces a leaked bootstrap token: the old one and its access tokens die at once, the identity stays', async () => {
    const v = await owner();
    const { agentId, token: leaked } = await createIdentity(v, 'Scripted agent', '3');
    const before = await exchange(leaked!);
    expect(before.status).toBe(200);
    expect(await mcpStatus(before.body.access_token)).toBe(200);

    const replaced = await act(v, agentId, 'bootstrap', { days: '5' });
    expect(replaced.status).toBe(201);
    const fresh = secretOf(replaced.text, 'cd_boot_')!;
    expect(fresh).toMatch(/^cd_boot_/);
    expect(fresh).not.toBe(leaked);
    // Shown once: the page afterwards does not carry it.
    expect((await v.get(`/console/identities/${agentId}`)).text).not.toContain(fresh);

    expect(await exchange(leaked!)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    expect(await mcpStatus(before.body.access_token)).toBe(401);
    const after = await exchange(fresh);
    expect(after.status).toBe(200);
    expect(after.body.agent_id).toBe(agentId);
    expect(await mcpStatus(after.body.access_token)).toBe(200);
    const audit = (await v.get('/console/audit')).text;
    expect(audit).toContain('bootstrap.reissue');
    expect(audit).not.toContain(fresh);

    // Bad days are explained on the page; nothing changes.
    const bad = await act(v, agentId, 'bootstrap', { days: '99' });
    expect(bad.status).toBe(422);
    expect((await exchange(fresh)).status).toBe(200);
  });

  it('revoking an identity (after confirming) stops its project key on the very next request', async () => {
    const v = await owner();
    const { agentId } = await createIdentity(v);
    const key = secretOf((await act(v, agentId, 'keys', { days: '30' })).text, 'cd_prj_')!;
    expect(await mcpStatus(key)).toBe(200);
    const unconfirmed = await act(v, agentId, 'revoke');
    expect(unconfirmed.status).toBe(422);
    expect(errorOf(unconfirmed.text)).toMatch(/Tick the box/);
    expect(await mcpStatus(key)).toBe(200);
    expect((await act(v, agentId, 'revoke', { confirm: 'yes' })).status).toBe(303);
    expect(await mcpStatus(key)).toBe(401);
    const page = await v.get(`/console/identities/${agentId}`);
    expect(page.text).toContain('This identity is revoked');
    expect(page.text).not.toContain('Activate public reading');
    expect((await act(v, agentId, 'mode', { mode: 'READ' })).status).toBe(409);
  });

  it('refuses posts with a missing or foreign CSRF token (403) and changes nothing', async () => {
    const v = await owner();
    const other = await owner();
    const { agentId } = await createIdentity(v);
    const path = `/console/identities/${agentId}/mode`;
    const missing = await v.post(path, { mode: 'READ' });
    expect(missing.status).toBe(403);
    expect(missing.text).toContain('nothing was changed');
    const wrong = await v.post(path, { mode: 'READ', csrf: 'A'.repeat(43) });
    expect(wrong.status).toBe(403);
    const foreign = csrfOf((await other.get('/console')).text);
    expect((await v.post(path, { mode: 'READ', csrf: foreign })).status).toBe(403);
    expect(
      (await v.post('/console/identities/new', { display_name: 'x', runtime: 'y', days: '1' })).status,
    ).toBe(403);
    expect((await v.post('/console/signout', {})).status).toBe(403);

    const page = await v.get(`/console/identities/${agentId}`);
    expect(page.text).toContain('NONE: inert');
    expect((await v.get('/console')).text.match(/<code>agt_/g)).toHaveLength(1);
    expect((await v.get('/console/audit')).text).not.toContain('agent.activate');
  });

  it("owner A can neither see nor act on owner B's identities (404)", async () => {
    const a = await owner();
    const b = await owner();
    const { agentId } = await createIdentity(b, 'B only');
    const key = secretOf((await act(b, agentId, 'keys', { days: '5' })).text, 'cd_prj_')!;
    const keyId = /<code>(key_[0-9A-Z]{26})<\/code>/.exec(
      (await b.get(`/console/identities/${agentId}`)).text,
    )?.[1];
    expect((await a.get(`/console/identities/${agentId}`)).status).toBe(404);
    expect((await a.get('/console')).text).not.toContain('B only');
    const csrf = csrfOf((await a.get('/console')).text);
    const base = `/console/identities/${agentId}`;
    expect((await a.post(`${base}/mode`, { csrf, mode: 'READ' })).status).toBe(404);
    expect((await a.post(`${base}/rename`, { csrf, display_name: 'mine now' })).status).toBe(404);
    expect((await a.post(`${base}/revoke`, { csrf, confirm: 'yes' })).status).toBe(404);
    expect((await a.post(`${base}/keys`, { csrf, days: '5' })).status).toBe(404);
    expect((await a.post(`${base}/keys/${keyId}/revoke`, { csrf })).status).toBe(404);
    expect(await mcpStatus(key)).toBe(200);
    const page = await b.get(base);
    expect(page.text).toContain('B only');
    expect(page.text).toContain('NONE: inert');
    expect((await a.get('/console/identities/agt_NOTANID')).status).toBe(404);
  });

  it('lists every console action in the audit log', async () => {
    const v = await owner();
    const { agentId } = await createIdentity(v);
    await act(v, agentId, 'mode', { mode: 'READ' });
    await act(v, agentId, 'mode', { mode: 'NONE' });
    await act(v, agentId, 'rename', { display_name: 'Renamed' });
    const keyPage = await act(v, agentId, 'keys', { days: '2' });
    const keyId = /<code>(key_[0-9A-Z]{26})<\/code>/.exec(keyPage.text)?.[1];
    await act(v, agentId, `keys/${keyId}/revoke`);
    await act(v, agentId, 'revoke', { confirm: 'yes' });
    const audit = await v.get('/console/audit');
    expect(audit.status).toBe(200);
    for (const action of [
      'agent.create',
      'agent.activate',
      'agent.deactivate',
      'agent.rename',
      'key.create',
      'key.revoke',
      'agent.revoke',
    ]) {
      expect(audit.text).toContain(action);
    }
    expect(audit.text).toContain(agentId);
  });

  it('sends signed-out visitors to sign in, and back afterwards', async () => {
    const v = new Visitor(server.url);
    const res = await v.get('/console/audit');
    expect(res.status).toBe(303);
    expect(res.location).toBe('/console/signin?next=%2Fconsole%2Faudit');
    expect((await v.post('/console/identities/new', { display_name: 'x' })).location).toBe('/console/signin');
  });
});
