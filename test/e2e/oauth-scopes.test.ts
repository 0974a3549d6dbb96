import type * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Json, modernRequest, postModern } from '../support/mcp-modern.ts';
import { type OAuthHarness, REDIRECT, startOAuthHarness } from '../support/oauth.ts';

/**
 * Scopes (issue 42 item 4, MCP authorization "Scope Challenge Handling", RFC 6750 §3.1): an owner
 * can approve a client for less than everything (mcp:read, mcp:arena); a tool call the token's
 * scopes do not cover is HTTP 403 insufficient_scope naming what to ask for; the client steps up
 * by authorizing again, and the owner gives the wider scopes to the same identity.
 */

let h: OAuthHarness & { close(): Promise<void> };
let as: oauth.AuthorizationServer;
let clientId: string;

beforeAll(async () => {
  h = await startOAuthHarness();
  as = await h.discover();
  clientId = (await h.register(as, { scope: 'mcp mcp:read' })).body.client_id!;
});
afterAll(async () => {
  await h?.close();
});

/** An authorization for `scope`, decided on the consent page; the token endpoint's answer. */
async function authorized(scope: string, decision: 'allow' | `extend:${string}` = 'allow') {
  const { url, verifier } = await h.authorize(as, clientId, { scope });
  const code = (await h.consent(url.href, decision)).searchParams.get('code')!;
  const issued = await h.token({
    grant_type: 'authorization_code',
    client_id: clientId,
    code,
    redirect_uri: REDIRECT,
    code_verifier: verifier,
  });
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return issued.body;
}

let nextId = 1;
async function call(bearer: string, tool: string) {
  const body = modernRequest(nextId++, 'tools/call', { name: tool, arguments: { nothing: true } });
  return postModern(h.server.url, bearer, body);
}

/** The parameters of a Bearer challenge (RFC 6750 §3). */
function challenge(header: string | null): Record<string, string> {
  expect(header).toMatch(/^Bearer /);
  return Object.fromEntries([...(header ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

describe('scopes', () => {
  it('are advertised, and a 401 asks for mcp', async () => {
    expect(as.scopes_supported).toEqual(['mcp', 'mcp:read', 'mcp:arena']);
    const anonymous = await postModern(h.server.url, 'cd_acc_nope', modernRequest(1, 'tools/list'));
    expect(anonymous.status).toBe(401);
    expect(challenge(anonymous.headers.get('www-authenticate')).scope).toBe('mcp');
  });

  it('an unknown scope is refused back to the client with invalid_scope', async () => {
    const { url } = await h.authorize(as, clientId, { scope: 'mcp:admin' });
    const res = await fetch(url, { redirect: 'manual' });
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
    expect(back.searchParams.get('error_description')).toContain('mcp:read');
  });

  it('mcp:read reaches read-only tools; a tool that changes something is 403 insufficient_scope naming the union', async () => {
    const tokens = await authorized('mcp:read');
    expect(tokens.scope).toBe('mcp:read');
    // Listing and reading pass the scope check (what refuses here is the arguments).
    expect(
      (await postModern(h.server.url, tokens.access_token!, modernRequest(1, 'tools/list'))).status,
    ).toBe(200);
    const read = await call(tokens.access_token!, 'policy_explain');
    expect(read.status).toBe(200);
    expect((read.body as Json).result.structuredContent.error.code).toBe('VALIDATION_FAILED');

    const write = await call(tokens.access_token!, 'campaign_create');
    expect(write.status).toBe(403);
    const params = challenge(write.headers.get('www-authenticate'));
    expect(params).toMatchObject({
      error: 'insufficient_scope',
      scope: 'mcp mcp:read',
      resource_metadata: `${h.server.url}/.well-known/oauth-protected-resource/mcp`,
    });
    expect(params.error_description).toContain('campaign_create needs the scope mcp');
    const body = write.body as Json;
    expect(body.id).toBe(nextId - 1);
    expect(body.error.data.error).toMatchObject({ code: 'INSUFFICIENT_SCOPE' });
    expect(body.error.data.error.details).toEqual({
      tool: 'campaign_create',
      scope_needed: 'mcp',
      scopes_held: ['mcp:read'],
    });
  });

  it('a step-up gives the wider scopes to the same identity, when the owner chooses it on the consent page', async () => {
    const first = await authorized('mcp:read');
    expect((await call(first.access_token!, 'campaign_create')).status).toBe(403);

    const { url } = await h.authorize(as, clientId, { scope: 'mcp mcp:read' });
    const page = await h.reviewPage(url.href);
    expect(page).toContain(`extend:${first.agent_id}`);
    expect(page).toContain('only the tools that read and change nothing');

    const stepped = await authorized('mcp mcp:read', `extend:${first.agent_id}`);
    expect(stepped.agent_id).toBe(first.agent_id);
    expect(stepped.scope).toBe('mcp mcp:read');
    const write = await call(stepped.access_token!, 'campaign_create');
    expect(write.status).toBe(200);
    expect((write.body as Json).result.structuredContent.error.code).toBe('VALIDATION_FAILED');
    // The first token keeps what it was approved for.
    expect((await call(first.access_token!, 'campaign_create')).status).toBe(403);
  });

  it('a plain Allow still makes a new identity', async () => {
    const one = await authorized('mcp:read');
    const two = await authorized('mcp');
    expect(two.agent_id).not.toBe(one.agent_id);
  });

  it('mcp:arena reaches the Arena’s tools and not the others', async () => {
    const tokens = await authorized('mcp:arena');
    expect((await call(tokens.access_token!, 'arena_reports')).status).toBe(200);
    const read = await call(tokens.access_token!, 'policy_explain');
    expect(read.status).toBe(403);
    expect(challenge(read.headers.get('www-authenticate')).scope).toBe('mcp:read mcp:arena');
    // The tools every caller has need no scope.
    expect((await call(tokens.access_token!, 'identity_whoami')).status).toBe(200);
  });

  it('a refresh asks for no more than was approved, and a refused one spends nothing', async () => {
    const tokens = await authorized('mcp:read');
    const wider = await h.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: clientId,
      scope: 'mcp',
    });
    expect(wider.status).toBe(400);
    expect(wider.body.error).toBe('invalid_scope');
    const same = await h.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: clientId,
      scope: 'mcp:read',
    });
    expect(same.status).toBe(200);
    expect(same.body.scope).toBe('mcp:read');
    expect((await call(same.body.access_token!, 'campaign_create')).status).toBe(403);
  });

  it('the tool call refused the same way over a 2025-11-25 session', async () => {
    const tokens = await authorized('mcp:read');
    const res = await fetch(`${h.server.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'campaign_create', arguments: {} },
      }),
    });
    expect(res.status).toBe(403);
    expect(challenge(res.headers.get('www-authenticate')).error).toBe('insufficient_scope');
  });
});
