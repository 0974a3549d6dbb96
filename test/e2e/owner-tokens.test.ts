import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, newMember, refused } from '../support/campaigns.ts';
import { Visitor } from '../support/console-visitor.ts';
import { mcpInitialize, uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 15 item 1: owner API tokens (cd_own_) for the `/v1/…` console operations. */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

async function signedIn(): Promise<{ email: string; visitor: Visitor }> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, 'correct horse battery staple');
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  return { email, visitor };
}

/** A `/v1/…` call with a bearer and no cookie at all. */
// biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON answers
async function bearer(token: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return {
    status: res.status,
    challenge: res.headers.get('www-authenticate'),
    body: text ? JSON.parse(text) : null,
  };
}

async function rows(query: ReturnType<typeof sql>) {
  const result = await server.database.db.execute(query);
  return (result as unknown as { rows: Array<Record<string, unknown>> }).rows;
}

async function makeToken(v: Visitor, name = 'nightly script', days = 30) {
  const made = await v.api('POST', '/v1/owner/tokens', { name, days });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  return made.body as { token: string; token_id: string; prefix: string; expires_at: string };
}

describe('owner API tokens', () => {
  it('are made from a session, shown once, and work as the owner on /v1/oauth and /v1/campaigns', async () => {
    const { email, visitor } = await signedIn();
    const made = await makeToken(visitor);
    expect(made.token).toMatch(/^cd_own_[a-z2-7]{52}$/);
    expect(made.token.startsWith(made.prefix)).toBe(true);
    expect(made.prefix.length).toBeLessThan(20);

    const connections = await bearer(made.token, 'GET', '/v1/oauth/connections');
    expect(connections.status).toBe(200);
    expect(connections.body).toEqual({ connections: [] });

    // A campaign of the owner's agent: readable and writable with the token, no cookie, no CSRF.
    const coordinator = await newMember(server, email);
    const campaignId = await campaignWith(coordinator, []);
    const campaign = await bearer(made.token, 'GET', `/v1/campaigns/${campaignId}`);
    expect(campaign.status, JSON.stringify(campaign.body)).toBe(200);
    expect(JSON.stringify(campaign.body)).toContain(campaignId);
    const posted = await bearer(made.token, 'POST', `/v1/campaigns/${campaignId}/messages`, {
      content: 'Please keep to the moorland sources.',
      type: 'NOTE',
    });
    expect(posted.status, JSON.stringify(posted.body)).toBe(200);

    // Another owner's token does not reach this campaign.
    const other = await makeToken((await signedIn()).visitor);
    expect((await bearer(other.token, 'GET', `/v1/campaigns/${campaignId}`)).status).toBe(404);

    // Listed without the secret, and last use recorded.
    const listed = await visitor.api('GET', '/v1/owner/tokens');
    expect(listed.status).toBe(200);
    expect(JSON.stringify(listed.body)).not.toContain(made.token);
    expect(listed.body.tokens).toHaveLength(1);
    expect(listed.body.tokens[0]).toMatchObject({
      token_id: made.token_id,
      name: 'nightly script',
      prefix: made.prefix,
      status: 'ACTIVE',
      revoked_at: null,
    });
    expect(listed.body.tokens[0].last_used_at).not.toBeNull();
    expect(listed.body.tokens[0]).not.toHaveProperty('token');
    // The token lists its owner's tokens too.
    expect((await bearer(made.token, 'GET', '/v1/owner/tokens')).body.tokens[0].token_id).toBe(made.token_id);
  });

  it('writes last_used_at at most once a minute', async () => {
    const { visitor } = await signedIn();
    const made = await makeToken(visitor, 'touch check');
    const lastUsed = async () =>
      (await rows(sql`select last_used_at from owner_tokens where id = ${made.token_id}`))[0]?.last_used_at;
    expect(await lastUsed()).toBeNull();
    await bearer(made.token, 'GET', '/v1/owner/tokens');
    const first = String(await lastUsed());
    expect(first).not.toBe('null');
    await bearer(made.token, 'GET', '/v1/owner/tokens');
    expect(String(await lastUsed())).toBe(first);
    await server.database.db.execute(
      sql`update owner_tokens set last_used_at = now() - interval '2 minutes' where id = ${made.token_id}`,
    );
    const stale = String(await lastUsed());
    await bearer(made.token, 'GET', '/v1/owner/tokens');
    expect(String(await lastUsed())).not.toBe(stale);
  });

  it('stores only a hash: the token text is nowhere in its row or the audit log', async () => {
    const { visitor } = await signedIn();
    const made = await makeToken(visitor, 'hash check');
    const stored = await rows(sql`select * from owner_tokens where id = ${made.token_id}`);
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(made.token);
    expect(JSON.stringify(stored)).not.toContain(made.token.slice(11));
    const audit = await rows(sql`select * from audit_log where subject_id = ${made.token_id}`);
    expect(JSON.stringify(audit)).not.toContain(made.token);
  });

  it('refuses expired, revoked, unknown and malformed tokens with 401 and a challenge', async () => {
    const { visitor } = await signedIn();
    const expired = await makeToken(visitor, 'short lived', 1);
    expect((await bearer(expired.token, 'GET', '/v1/oauth/connections')).status).toBe(200);
    await server.database.db.execute(
      sql`update owner_tokens set expires_at = now() - interval '1 second' where id = ${expired.token_id}`,
    );
    const refusedExpired = await bearer(expired.token, 'GET', '/v1/oauth/connections');
    expect(refusedExpired.status).toBe(401);
    expect(refusedExpired.body.error.code).toBe('UNAUTHENTICATED');
    expect(refusedExpired.challenge).toMatch(/^Bearer realm="cairn-owner", error="invalid_token"/);

    const revoked = await makeToken(visitor, 'to revoke');
    const done = await visitor.api('POST', `/v1/owner/tokens/${revoked.token_id}/revoke`, {});
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ token_id: revoked.token_id, status: 'REVOKED' });
    const refusedRevoked = await bearer(revoked.token, 'GET', '/v1/oauth/connections');
    expect(refusedRevoked.status).toBe(401);
    expect(refusedRevoked.body).toMatchObject({ status: 'ERROR', error: { code: 'UNAUTHENTICATED' } });

    expect((await bearer(`cd_own_${'a'.repeat(52)}`, 'GET', '/v1/oauth/connections')).status).toBe(401);
    expect((await bearer('not-a-token', 'GET', '/v1/oauth/connections')).status).toBe(401);
    const statuses = (await visitor.api('GET', '/v1/owner/tokens')).body.tokens.map(
      (t: { status: string }) => t.status,
    );
    expect(statuses.sort()).toEqual(['EXPIRED', 'REVOKED']);
  });

  it("revokes only the owner's own tokens", async () => {
    const mine = await makeToken((await signedIn()).visitor);
    const { visitor: stranger } = await signedIn();
    const attempt = await stranger.api('POST', `/v1/owner/tokens/${mine.token_id}/revoke`, {});
    expect(attempt.status).toBe(404);
    expect((await bearer(mine.token, 'GET', '/v1/oauth/connections')).status).toBe(200);
  });

  it('cannot mint tokens with a token, and says why', async () => {
    const { visitor } = await signedIn();
    const made = await makeToken(visitor);
    const minted = await bearer(made.token, 'POST', '/v1/owner/tokens', { name: 'child', days: 365 });
    expect(minted.status).toBe(403);
    expect(minted.body.error.code).toBe('CONSOLE_SESSION_REQUIRED');
    expect(minted.body.error.message).toMatch(/cannot make tokens/);
    expect((await visitor.api('GET', '/v1/owner/tokens')).body.tokens).toHaveLength(1);
  });

  it('validates name and days', async () => {
    const { visitor } = await signedIn();
    for (const body of [
      { name: '', days: 30 },
      { name: 'x'.repeat(101), days: 30 },
      { name: 'two\nlines', days: 30 },
      { name: 'ok', days: 0 },
      { name: 'ok', days: 366 },
    ]) {
      const res = await visitor.api('POST', '/v1/owner/tokens', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
    }
  });

  it('is refused on /mcp with a message that says what it is and where it works', async () => {
    const { visitor } = await signedIn();
    const made = await makeToken(visitor);
    const res = await mcpInitialize(server.url, made.token);
    expect(res.status).toBe(401);
    const raw = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${made.token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(raw.status).toBe(401);
    const message = (await raw.json()).error.message as string;
    expect(message).toMatch(/owner API token/);
    expect(message).toMatch(/\/v1\//);
    expect(message).toMatch(/never accepted on \/mcp/);
  });

  it('is recognised as a secret when pasted into tool arguments', async () => {
    const { email, visitor } = await signedIn();
    const made = await makeToken(visitor);
    const agent = await newMember(server, email);
    const error = await refused(agent, 'campaign_create', {
      title: `Survey ${made.token}`,
      objective: 'Find and verify facts about moorland birds.',
      allow_agent_publish: false,
      visibility: 'SHARED',
      participation: 'OPEN',
    });
    expect(error.code).toBe('CREDENTIAL_IN_INPUT');
  });

  it('records owner.token.create and owner.token.revoke in the audit log', async () => {
    const { visitor } = await signedIn();
    const made = await makeToken(visitor, 'audited');
    await visitor.api('POST', `/v1/owner/tokens/${made.token_id}/revoke`, {});
    const audit = await rows(
      sql`select action from audit_log where subject_id = ${made.token_id} order by created_at, id`,
    );
    expect(audit.map((r) => r.action)).toEqual(['owner.token.create', 'owner.token.revoke']);
    const page = (await visitor.get('/console/audit')).text;
    expect(page).toContain('owner.token.create');
  });
});

describe('the API tokens console page', () => {
  const secret = (text: string) => /(cd_own_[a-z2-7]{52})/.exec(text)?.[1] ?? null;

  it('creates a token shown once, lists it without the secret, and revokes it', async () => {
    const { visitor } = await signedIn();
    const empty = await visitor.get('/console/tokens');
    expect(empty.status).toBe(200);
    expect(empty.text).toContain('No API tokens yet.');

    const created = await visitor.submit('/console/tokens', '/console/tokens', {
      name: 'Report script',
      days: '7',
    });
    expect(created.status).toBe(200);
    const token = secret(created.text);
    expect(token).not.toBeNull();
    expect(created.text).toContain('shown only this once');
    expect((await bearer(token as string, 'GET', '/v1/oauth/connections')).status).toBe(200);

    const again = await visitor.get('/console/tokens');
    expect(secret(again.text)).toBeNull();
    expect(again.text).toContain('Report script');
    expect(again.text).toContain((token as string).slice(0, 11));

    const id = /action="\/console\/tokens\/(otk_[0-9A-Z]{26})\/revoke"/.exec(again.text)?.[1];
    expect(id).toBeDefined();
    // A form post without the session's CSRF token changes nothing.
    expect((await visitor.post(`/console/tokens/${id}/revoke`, {})).status).toBe(403);
    expect((await bearer(token as string, 'GET', '/v1/oauth/connections')).status).toBe(200);

    const revoked = await visitor.submit('/console/tokens', `/console/tokens/${id}/revoke`, {});
    expect(revoked.status).toBe(303);
    expect(revoked.location).toBe('/console/tokens?done=revoked');
    expect((await bearer(token as string, 'GET', '/v1/oauth/connections')).status).toBe(401);
    expect((await visitor.get('/console/tokens')).text).toContain('revoked');
  });

  it('refuses a bad form with a readable message and makes nothing', async () => {
    const { visitor } = await signedIn();
    const bad = await visitor.submit('/console/tokens', '/console/tokens', { name: '', days: '400' });
    expect(bad.status).toBe(422);
    expect(secret(bad.text)).toBeNull();
    expect(bad.text).toMatch(/Enter a name\.|At most 365 days\./);
    expect((await visitor.api('GET', '/v1/owner/tokens')).body.tokens).toHaveLength(0);
  });
});
