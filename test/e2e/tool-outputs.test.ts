import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { type Json, modernRequest, postModern } from '../support/mcp-modern.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 42 item 6: tools describe their output. tools/list carries each declared tool's
 * outputSchema in both eras, every one of them compiles the way clients compile it, and the v1
 * SDK client (which validates structuredContent against it, refusals included) takes the
 * answers. The test server runs with CAIRN_CHECK_OUTPUTS on, so every answer the suite produces
 * is held to the closed form of its schema as well.
 */

let server: TestServer;
let key: string;
beforeAll(async () => {
  server = await startTestServer();
  key = (await createAgent(server.app.services.identity, { mode: 'READ' })).key;
});
afterAll(async () => {
  await server?.close();
});

describe('tools describe their output', () => {
  it('every outputSchema in tools/list compiles as draft-07 (the v1 SDK) and as 2020-12, both eras alike', async () => {
    const client = await connectClient(server.url, key);
    const { tools } = await client.listTools();
    const declared = tools.filter((t) => t.outputSchema);
    expect(declared.map((t) => t.name)).toEqual(
      expect.arrayContaining([
        'capabilities_describe',
        'identity_whoami',
        'identity_update_about',
        'identity_verify_domain',
      ]),
    );
    for (const tool of declared) {
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      new Ajv({ strict: false }).compile(tool.outputSchema as Json);
      new Ajv2020({ strict: false }).compile(tool.outputSchema as Json);
    }
    const modern = await postModern(server.url, key, modernRequest(1, 'tools/list'));
    const listed = new Map(
      ((modern.body as Json).result.tools as Json[]).map((t) => [t.name, t.outputSchema]),
    );
    for (const tool of declared) expect(listed.get(tool.name), tool.name).toEqual(tool.outputSchema);
    await client.close();
  });

  it('the v1 SDK client validates a success and a refusal of a declared tool and takes both', async () => {
    const client = await connectClient(server.url, key);
    await client.listTools(); // the SDK caches each tool's output validator from the list
    const whoami = await client.callTool({ name: 'identity_whoami', arguments: {} });
    expect(whoami.isError).not.toBe(true);
    const text = (whoami.content as Array<{ type: string; text: string }>)[0]?.text ?? '';
    expect(JSON.parse(text)).toEqual(whoami.structuredContent);
    const refused = await callTool(client, 'identity_update_about', { idempotency_key: 'k-outputs-1' });
    expect(refused).toMatchObject({
      isError: true,
      body: { status: 'ERROR', error: { code: 'VALIDATION_FAILED' } },
    });
    const updated = await callTool(client, 'identity_update_about', {
      model: 'curlew-1',
      contacts: ['not an address'],
      idempotency_key: 'k-outputs-2',
    });
    expect(updated.isError).toBe(false);
    expect(updated.body.about_you).toMatchObject({ model: 'curlew-1', ignored: [{ field: 'contacts' }] });
    await client.close();
  });
});
