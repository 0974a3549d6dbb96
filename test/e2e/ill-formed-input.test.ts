import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 14 item 4: strings that are not text (NUL, lone UTF-16 surrogates) are refused at the
 * edge as VALIDATION_FAILED naming where they are, for every tool and route, instead of failing
 * deep in PostgreSQL as a retryable INTERNAL (or two keys becoming one).
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

describe('ill-formed strings', () => {
  it('refuses them in any tool argument, naming the argument, and stores nothing', async () => {
    const agent = await createAgent(server.app.services.identity, { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const cases: Array<[Record<string, unknown>, Array<string | number>, string]> = [
      [
        { purpose: 'Research', idempotency_key: 'key-with-\u0000-nul' },
        ['arguments', 'idempotency_key'],
        'nul_character',
      ],
      [
        { purpose: 'Research \ud800 here', idempotency_key: 'key-lone-high-1' },
        ['arguments', 'purpose'],
        'lone_surrogate',
      ],
      [
        { purpose: 'Research', contacts: ['a\udc00'], idempotency_key: 'key-lone-low-1' },
        ['arguments', 'contacts', 0],
        'lone_surrogate',
      ],
      [
        { purpose: 'Research', idempotency_key: 'key-ok-but', 'odd\u0000key': 1 },
        ['arguments', 'odd\u0000key'],
        'nul_character',
      ],
    ];
    for (const [args, loc, type] of cases) {
      const r = await callTool(client, 'identity_update_about', args);
      expect(r.isError, JSON.stringify(args)).toBe(true);
      expect(r.body.error).toMatchObject({ code: 'VALIDATION_FAILED', retryable: false });
      expect(r.body.error.details.detail).toContainEqual(expect.objectContaining({ loc, type }));
      expect(r.body.error.next_action).toContain('identity_update_about');
    }
    const who = await callTool(client, 'identity_whoami');
    expect(who.body.about_you.purpose).toBeNull();

    // Two keys that differ only in their lone surrogates are not the same key: both are refused.
    for (const key of ['key-collide-\ud800', 'key-collide-\udbff']) {
      const r = await callTool(client, 'identity_update_about', { purpose: 'P', idempotency_key: key });
      expect(r.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('refuses them in HTTP bodies and queries, in each surface’s own shape', async () => {
    const query = await fetch(`${server.url}/v1/public/tools?format=${encodeURIComponent('json\u0000')}`);
    expect(query.status).toBe(422);
    const q = (await query.json()) as { detail: unknown[]; error: { code: string } };
    expect(q.error.code).toBe('VALIDATION_FAILED');
    expect(q.detail).toContainEqual(
      expect.objectContaining({ loc: ['querystring', 'format'], type: 'nul_character' }),
    );

    const pairing = await fetch(`${server.url}/oauth/device_authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ display_name: 'Agent\u0000', runtime: 'cli' }),
    });
    expect(pairing.status).toBe(400);
    const p = (await pairing.json()) as { error: string; error_description: string };
    expect(p.error).toBe('invalid_request');
    expect(p.error_description).toContain('body.display_name');
  });

  it('refuses prototype keys as such, naming the key, in JSON-RPC on /mcp and in each surface elsewhere', async () => {
    const agent = await createAgent(server.app.services.identity, { mode: 'READ' });
    const post = (path: string, text: string, bearer = true) =>
      fetch(`${server.url}${path}`, {
        method: 'POST',
        headers: {
          ...(bearer ? { authorization: `Bearer ${agent.key}` } : {}),
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: text,
      });
    const call = (args: string) =>
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"identity_whoami","arguments":${args}}}`;
    for (const [args, key] of [
      ['{"__proto__":{"admin":true}}', '__proto__'],
      ['{"constructor":{"prototype":{"admin":true}}}', 'constructor.prototype'],
    ]) {
      const res = await post('/mcp', call(args as string));
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, data: { refused_key: key } },
      });
    }
    // A key merely named constructor (not holding prototype) is ordinary data.
    const plain = await post(
      '/mcp',
      call('{}').replace('"arguments":{}', '"arguments":{},"_meta":{"constructor":1}'),
    );
    expect(plain.status).toBe(200);

    const oauth = await post(
      '/oauth/device_authorization',
      '{"display_name":"A","runtime":"b","__proto__":{}}',
      false,
    );
    expect(oauth.status).toBe(400);
    expect(((await oauth.json()) as { error_description: string }).error_description).toContain('__proto__');

    // JSON that is no JSON-RPC message at all is JSON-RPC's Invalid Request.
    const notRpc = await post('/mcp', '{"hello":"world"}');
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } });
  });
});
