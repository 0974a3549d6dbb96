import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDACT_PATHS } from '../../src/app.ts';
import { newToken } from '../../src/kernel/ids.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

let server: TestServer;
let logged = '';

beforeAll(async () => {
  const sink = new Writable({
    write(chunk, _enc, done) {
      logged += chunk.toString();
      done();
    },
  });
  // The app's own redaction rules, at the most verbose level.
  const logger = pino({ level: 'trace', redact: { paths: REDACT_PATHS, censor: '[redacted]' } }, sink);
  server = await startTestServer({ logger });
});
afterAll(async () => {
  await server?.close();
});

describe('logs', () => {
  it('never contain bearer credentials or secrets refused in arguments', async () => {
    const agent = await createAgent(server.app.services.identity, { mode: 'READ' });
    const client = await connectClient(server.url, agent.key);
    const secret = newToken('acc');
    const refused = await callTool(client, 'identity_update_about', {
      idempotency_key: 'log-0001',
      purpose: secret,
    });
    expect(refused.body.error.code).toBe('CREDENTIAL_IN_INPUT');
    await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${newToken('prj')}` },
    });
    await client.close();

    expect(logged).toContain('request completed');
    expect(logged).not.toContain(agent.key);
    expect(logged).not.toContain(secret);
    expect(logged).not.toMatch(/cd_(prj|acc)_[a-z2-7]{20}/);
  });
});
