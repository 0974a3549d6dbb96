import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentTokens } from '../../src/domains/identity/credentials/tables.ts';
import { FakeClock } from '../../src/kernel/clock.ts';
import { callTool, connectClient, uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Device pairing, bootstrap exchange and refresh rotation at /oauth/token, with a fake clock. */

let server: TestServer;
const clock = new FakeClock(new Date());
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

const services = () => server.app.services;

async function post(path: string, body: Record<string, unknown>, form = false) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
    body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
  });
  // biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary answer shapes
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

async function newOwner(): Promise<string> {
  return (await services().identity.addOwner(uniqueEmail(), 'correct horse battery staple')).owner_id;
}

async function startPairing(extra: Record<string, unknown> = {}) {
  const res = await post('/oauth/device_authorization', {
    display_name: 'Claude at work',
    runtime: 'claude-code',
    ...extra,
  });
  expect(res.status).toBe(200);
  return res.body;
}

const poll = (deviceCode: string) =>
  post('/oauth/token', { grant_type: DEVICE_GRANT, device_code: deviceCode });

describe('POST /oauth/device_authorization', () => {
  it('answers RFC 8628 fields with a readable user code and one sentence for the user', async () => {
    const res = await post('/oauth/device_authorization', {
      display_name: 'Claude at work',
      runtime: 'claude-code',
      requested_mode: 'READ',
      model: 'claude-sonnet',
      contacts: ['not-a-contact'],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const b = res.body;
    expect(b.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(b.device_code).toMatch(/^cd_dev_[a-z2-7]{52}$/);
    expect(b).toMatchObject({ verification_uri: `${server.url}/pair`, interval: 5, expires_in: 900 });
    expect(b.verification_uri_complete).toBe(`${server.url}/pair?code=${b.user_code}`);
    expect(b.say_to_user).toContain(b.verification_uri_complete);
    const pending = await services().device.findForApproval(b.user_code.toLowerCase().replace('-', ''));
    expect(pending).toMatchObject({
      display_name: 'Claude at work',
      runtime: 'claude-code',
      requested_mode: 'READ',
    });
    expect(pending?.about.model).toBe('claude-sonnet');
    expect(pending?.about.ignored?.[0]?.field).toBe('contacts');
  });

  it('refuses bad input with invalid_request, naming each problem, and stores nothing', async () => {
    const res = await post('/oauth/device_authorization', {
      display_name: '',
      runtime: 'x'.repeat(500),
      surprise: 1,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    const fields = res.body.detail.map((d: { loc: string[] }) => d.loc.at(-1));
    expect(fields).toEqual(expect.arrayContaining(['display_name', 'runtime']));
  });

  it('grants only the mcp scope, at pairing and at polling', async () => {
    const wide = await post('/oauth/device_authorization', {
      display_name: 'Claude at work',
      runtime: 'claude-code',
      scope: 'mcp admin',
    });
    expect(wide).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const { device_code } = await startPairing({ scope: 'mcp' });
    const polled = await post('/oauth/token', { grant_type: DEVICE_GRANT, device_code, scope: 'admin' });
    expect(polled).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
  });
});

describe('device grant polling', () => {
  it('is pending, slows down fast pollers, and yields tokens once the owner approves', async () => {
    const { device_code, user_code } = await startPairing();
    expect((await poll(device_code)).body.error).toBe('authorization_pending');
    clock.advance(1_000);
    const tooFast = await poll(device_code);
    expect(tooFast).toMatchObject({ status: 400, body: { error: 'slow_down' } });
    clock.advance(6_000);
    // The interval is now 10 s: 6 s later is still too fast.
    expect((await poll(device_code)).body.error).toBe('slow_down');
    clock.advance(16_000);
    expect((await poll(device_code)).body.error).toBe('authorization_pending');

    const ownerId = await newOwner();
    await services().device.decide(ownerId, user_code, { approve: true, activateRead: false });
    clock.advance(16_000);
    const granted = await poll(device_code);
    expect(granted.status).toBe(200);
    expect(granted.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
    expect(granted.body.access_token).toMatch(/^cd_acc_/);
    expect(granted.body.refresh_token).toMatch(/^cd_ref_/);
    expect(granted.body.agent_id).toMatch(/^agt_/);
    clock.advance(16_000);
    expect((await poll(device_code)).body.error).toBe('invalid_grant');

    // Approval alone activates nothing; the identity is runtime-bound and carries its claims.
    const client = await connectClient(server.url, granted.body.access_token);
    const whoami = (await callTool(client, 'identity_whoami')).body;
    expect(whoami).toMatchObject({
      agent_id: granted.body.agent_id,
      kind: 'RUNTIME_BOUND',
      mode: 'NONE',
      active: false,
    });
    expect((await client.listTools()).tools).toHaveLength(2);
    await client.close();
  });

  it('activates public reading in the same step when the owner ticks it', async () => {
    const { device_code, user_code } = await startPairing();
    await services().device.decide(await newOwner(), user_code, { approve: true, activateRead: true });
    clock.advance(6_000);
    const { access_token } = (await poll(device_code)).body;
    const client = await connectClient(server.url, access_token);
    expect((await callTool(client, 'identity_whoami')).body).toMatchObject({ mode: 'READ', active: true });
    await client.close();
  });

  it('answers access_denied after a decline and expired_token after 15 minutes', async () => {
    const declined = await startPairing();
    await services().device.decide(await newOwner(), declined.user_code, {
      approve: false,
      activateRead: false,
    });
    clock.advance(6_000);
    expect((await poll(declined.device_code)).body.error).toBe('access_denied');

    const late = await startPairing();
    clock.advance(15 * 60_000 + 1_000);
    expect((await poll(late.device_code)).body.error).toBe('expired_token');
    await expect(
      services().device.decide(await newOwner(), late.user_code, { approve: true, activateRead: false }),
    ).rejects.toThrow(/No pending pairing/);
  });

  it('yields nothing for an approved code once it has expired', async () => {
    const { device_code, user_code } = await startPairing();
    await services().device.decide(await newOwner(), user_code, { approve: true, activateRead: true });
    clock.advance(15 * 60_000 + 1_000);
    expect((await poll(device_code)).body.error).toBe('expired_token');
  });

  it('refuses unknown device codes and unsupported grants the OAuth way', async () => {
    expect((await poll('cd_dev_nothing')).body.error).toBe('invalid_grant');
    expect((await post('/oauth/token', { grant_type: 'password', username: 'x' })).body.error).toBe(
      'unsupported_grant_type',
    );
    expect((await post('/oauth/token', {})).body.error).toBe('invalid_request');
    const missing = await post('/oauth/token', { grant_type: 'refresh_token' }, true);
    expect(missing).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  });
});

describe('refresh rotation', () => {
  async function pairedTokens() {
    const { device_code, user_code } = await startPairing();
    await services().device.decide(await newOwner(), user_code, { approve: true, activateRead: true });
    clock.advance(6_000);
    return (await poll(device_code)).body;
  }
  const refresh = (token: string) =>
    post('/oauth/token', { grant_type: 'refresh_token', refresh_token: token }, true);

  it('spends the old token and returns a new pair for the same identity', async () => {
    const first = await pairedTokens();
    const rotated = await refresh(first.refresh_token);
    expect(rotated.status).toBe(200);
    expect(rotated.body.agent_id).toBe(first.agent_id);
    expect(rotated.body.refresh_token).not.toBe(first.refresh_token);
    expect(rotated.body.access_token).not.toBe(first.access_token);
    const client = await connectClient(server.url, rotated.body.access_token);
    expect((await callTool(client, 'identity_whoami')).body.agent_id).toBe(first.agent_id);
    await client.close();
  });

  it('refuses a scope beyond mcp without spending the refresh token', async () => {
    const first = await pairedTokens();
    for (const scope of ['admin', 'mcp admin']) {
      const wider = await post(
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope },
        true,
      );
      expect(wider, scope).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    }
    // Not spent: the same token still rotates, and asking for exactly mcp is fine.
    const rotated = await post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: first.refresh_token, scope: 'mcp' },
      true,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.agent_id).toBe(first.agent_id);
  });

  it('gives the same new pair to a duplicate within 2 seconds, and treats later reuse as replay', async () => {
    const first = await pairedTokens();
    const rotated = (await refresh(first.refresh_token)).body;
    clock.advance(1_500);
    expect((await refresh(first.refresh_token)).body).toEqual(rotated);
    clock.advance(1_000);
    const replay = await refresh(first.refresh_token);
    expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    expect(replay.body.error_description).toMatch(/revoked/);
    // Every token of that pairing is now dead.
    expect((await refresh(rotated.refresh_token)).body.error).toBe('invalid_grant');
    const mcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${rotated.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(mcp.status).toBe(401);
  });

  it('keeps the sealed duplicate answer no longer than its window', async () => {
    const first = await pairedTokens();
    await refresh(first.refresh_token);
    const sealedOf = async (agentId: string) =>
      (
        await server.database.db
          .select({ s: agentTokens.retrySealed })
          .from(agentTokens)
          .where(eq(agentTokens.agentId, agentId))
      ).filter((r) => r.s).length;
    expect(await sealedOf(first.agent_id)).toBe(1);
    clock.advance(2_500);
    // Any later refresh, of any pairing, sweeps answers whose window has passed.
    const other = await pairedTokens();
    await refresh(other.refresh_token);
    expect(await sealedOf(first.agent_id)).toBe(0);
    expect(await sealedOf(other.agent_id)).toBe(1);
  });

  it('expires access tokens after 60 minutes and refresh tokens after 7 days', async () => {
    const tokens = await pairedTokens();
    clock.advance(61 * 60_000);
    const res = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    const renewed = await refresh(tokens.refresh_token);
    expect(renewed.status).toBe(200);
    clock.advance(7 * 86_400_000 + 1_000);
    expect((await refresh(renewed.body.refresh_token)).body.error).toBe('invalid_grant');
  });
});

describe('bootstrap exchange', () => {
  it('trades a live bootstrap token for an access token only, and refuses dead ones with invalid_client', async () => {
    const ownerId = await newOwner();
    const created = await services().management.createIdentity(ownerId, {
      displayName: 'Scripted agent',
      runtime: 'cron',
      bootstrapDays: 1,
    });
    expect(created.bootstrap_token).toMatch(/^cd_boot_/);
    const bootstrapOnMcp = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${created.bootstrap_token}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(bootstrapOnMcp.status).toBe(401);

    const exchange = () =>
      post(
        '/oauth/token',
        { grant_type: 'client_credentials', client_secret: created.bootstrap_token },
        true,
      );
    const admin = await post(
      '/oauth/token',
      { grant_type: 'client_credentials', client_secret: created.bootstrap_token, scope: 'admin' },
      true,
    );
    expect(admin).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
    const ok = await exchange();
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, agent_id: created.agent_id });
    expect(ok.body.refresh_token).toBeUndefined();
    const client = await connectClient(server.url, ok.body.access_token);
    expect((await callTool(client, 'identity_whoami')).body).toMatchObject({
      kind: 'OWNER_CREATED',
      mode: 'NONE',
    });
    await client.close();

    await services().management.revoke(ownerId, created.agent_id);
    const revoked = await exchange();
    expect(revoked).toMatchObject({ status: 401, body: { error: 'invalid_client' } });

    const other = await services().management.createIdentity(ownerId, {
      displayName: 'Short-lived',
      runtime: 'cron',
      bootstrapDays: 1,
    });
    clock.advance(86_400_000 + 1_000);
    const expired = await post('/oauth/token', {
      grant_type: 'client_credentials',
      client_secret: other.bootstrap_token,
    });
    expect(expired).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
  });
});

describe('tokens bound to their resource (RFC 8707)', () => {
  const MCP_INIT = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  });
  const mcp = (token: string) =>
    fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: MCP_INIT,
    });

  it('refuses a grant for any other resource, and records /mcp as the audience of every token', async () => {
    const elsewhere = 'https://elsewhere.example/mcp';
    const { device_code, user_code } = await startPairing();
    await services().device.decide(await newOwner(), user_code, { approve: true, activateRead: true });
    clock.advance(6_000);
    const foreign = await post('/oauth/token', {
      grant_type: DEVICE_GRANT,
      device_code,
      resource: elsewhere,
    });
    expect(foreign).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const paired = await post('/oauth/token', {
      grant_type: DEVICE_GRANT,
      device_code,
      resource: `${server.url}/mcp`,
    });
    expect(paired.status).toBe(200);

    const created = await services().management.createIdentity(await newOwner(), {
      displayName: 'Scripted agent',
      runtime: 'cron',
      bootstrapDays: 1,
    });
    const exchange = (resource: string) =>
      post(
        '/oauth/token',
        { grant_type: 'client_credentials', client_secret: created.bootstrap_token, resource },
        true,
      );
    expect(await exchange(elsewhere)).toMatchObject({ status: 400, body: { error: 'invalid_target' } });
    const bootstrapped = await exchange(`${server.url}/mcp`);
    expect(bootstrapped.status).toBe(200);

    for (const agentId of [paired.body.agent_id, created.agent_id]) {
      const rows = await server.database.db
        .select({ audience: agentTokens.audience })
        .from(agentTokens)
        .where(eq(agentTokens.agentId, agentId));
      expect(rows.length).toBeGreaterThan(0);
      expect(rows.every((r) => r.audience === `${server.url}/mcp`)).toBe(true);
    }
    expect((await mcp(paired.body.access_token)).status).toBe(200);
  });

  it('refuses at /mcp a token whose audience is another resource', async () => {
    const created = await services().management.createIdentity(await newOwner(), {
      displayName: 'Scripted agent',
      runtime: 'cron',
      bootstrapDays: 1,
    });
    const { body } = await post(
      '/oauth/token',
      { grant_type: 'client_credentials', client_secret: created.bootstrap_token },
      true,
    );
    expect((await mcp(body.access_token)).status).toBe(200);
    // As if another server (another resource) had issued it into the same database.
    await server.database.db
      .update(agentTokens)
      .set({ audience: 'https://elsewhere.example/mcp' })
      .where(eq(agentTokens.agentId, created.agent_id));
    const refused = await mcp(body.access_token);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toContain('error="invalid_token"');
  });
});
