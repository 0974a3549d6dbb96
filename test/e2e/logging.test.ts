import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newToken } from '../../src/kernel/ids.ts';
import { createLogger } from '../../src/logging.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let logged = '';
const sink = new Writable({
  write(chunk, _enc, done) {
    logged += chunk.toString();
    done();
  },
});

beforeAll(async () => {
  // The app's own logger, at the most verbose level.
  server = await startTestServer({ logger: createLogger('trace', sink) });
});
afterAll(async () => {
  await server?.close();
});

describe('logs', () => {
  it('never contain credentials: not from headers, query strings, or refused arguments', async () => {
    const agent = await createAgent(server.app.services.identity, { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const inArgs = newToken('acc');
    const refused = await callTool(client, 'identity_update_about', {
      idempotency_key: 'log-0001',
      purpose: inArgs,
    });
    expect(refused.body.error.code).toBe('CREDENTIAL_IN_INPUT');
    await client.close();
    const inQuery = newToken('prj');
    await fetch(`${server.url}/guide?key=${inQuery}`);
    await fetch(`${server.url}/mcp?access_token=${inQuery}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${inQuery}` },
    });

    expect(logged).toContain('request completed');
    expect(logged).toContain('"path":"/guide"');
    for (const secret of [agent.key, inArgs, inQuery]) expect(logged).not.toContain(secret);
  });

  it('redacts secret fields of logged objects', () => {
    let line = '';
    const capture = new Writable({
      write(chunk, _enc, done) {
        line += chunk.toString();
        done();
      },
    });
    const token = newToken('ref');
    createLogger('info', capture).info(
      { upstream: { headers: { authorization: `Bearer ${token}` } }, grant: { refresh_token: token } },
      'x',
    );
    expect(line).toContain('[redacted]');
    expect(line).not.toContain(token);
  });
});
