import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, startDnsFixture } from '../support/dns-fixture.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** identity_verify_domain against a loopback DNS server the fetcher is configured to use. */

let server: TestServer;
let dns: DnsFixture;

beforeAll(async () => {
  dns = await startDnsFixture();
  server = await startTestServer({ env: { CAIRN_FETCH_DNS: dns.server } });
});
afterAll(async () => {
  await server?.close();
  await dns?.close();
});

async function activeClient() {
  const agent = await createAgent(server.app.services.identity, { mode: 'READ' });
  return { agent, client: await connectClient(server.url, agent.key) };
}

describe('identity_verify_domain', () => {
  it('hands out a token, reports both checks, and verifies once the TXT record is published', async () => {
    const { client } = await activeClient();
    const first = await callTool(client, 'identity_verify_domain', { domain: 'Research.Example.TEST.' });
    expect(first.isError).toBe(false);
    const r = first.body;
    expect(r).toMatchObject({ domain: 'research.example.test', verified: false });
    expect(r.token).toMatch(/^cairn-verify=[a-z2-7]{32}$/);
    expect(r.publish).toEqual({
      dns_txt: { name: '_cairn-verify.research.example.test', value: r.token },
      https_file: {
        url: 'https://research.example.test/.well-known/cairn-verification.txt',
        content: r.token,
      },
    });
    expect(r.checks).toEqual([
      expect.objectContaining({
        method: 'DNS_TXT',
        checked: '_cairn-verify.research.example.test',
        found: false,
      }),
      expect.objectContaining({
        method: 'HTTPS_FILE',
        found: false,
        detail: expect.stringContaining('DNS_FAILED'),
      }),
    ]);

    dns.records.set('_cairn-verify.research.example.test', { TXT: ['unrelated=1', r.token] });
    const second = (await callTool(client, 'identity_verify_domain', { domain: 'research.example.test' }))
      .body;
    expect(second).toMatchObject({ verified: true, token: r.token });
    expect(second.checks[0]).toMatchObject({ method: 'DNS_TXT', found: true });
    await client.close();
  });

  it("does not accept another identity's token", async () => {
    const a = await activeClient();
    const b = await activeClient();
    const tokenA = (await callTool(a.client, 'identity_verify_domain', { domain: 'shared.example.test' }))
      .body.token;
    dns.records.set('_cairn-verify.shared.example.test', { TXT: [tokenA] });
    const forB = (await callTool(b.client, 'identity_verify_domain', { domain: 'shared.example.test' })).body;
    expect(forB.token).not.toBe(tokenA);
    expect(forB.verified).toBe(false);
    expect(forB.checks[0].detail).toMatch(/none with the token/);
    await a.client.close();
    await b.client.close();
  });

  it('checks the https file only through the guard: a private address is not contacted', async () => {
    dns.records.set('intranet.example.test', { A: ['10.0.0.5'] });
    const { client } = await activeClient();
    const r = (await callTool(client, 'identity_verify_domain', { domain: 'intranet.example.test' })).body;
    expect(r.checks[1]).toMatchObject({ method: 'HTTPS_FILE', found: false });
    expect(r.checks[1].detail).toMatch(/ADDRESS_NOT_PUBLIC/);
    await client.close();
  });

  it('refuses what is not a public domain name', async () => {
    const { client } = await activeClient();
    for (const domain of [
      'https://example.org/x',
      '127.0.0.1',
      'localhost',
      'printer.local',
      'nodots',
      'a..b.org',
      '-x.org',
    ]) {
      const res = await callTool(client, 'identity_verify_domain', { domain });
      expect(res.body.error?.code, domain).toBe('VALIDATION_FAILED');
    }
    await client.close();
  });

  it('is not available to an inactive identity', async () => {
    const agent = await createAgent(server.app.services.identity);
    const client = await connectClient(server.url, agent.key);
    const res = await callTool(client, 'identity_verify_domain', { domain: 'example.test' });
    expect(res.body.error.code).toBe('TOOL_NOT_AVAILABLE');
    await client.close();
  });

  // The https check connects to port 443, so its fixture needs root (as CI has) to listen there.
  it.skipIf(process.getuid?.() !== 0)('verifies by the https file, trusting an operator CA', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=site.example.test',
        '-addext',
        'subjectAltName=DNS:site.example.test',
        '-keyout',
        path.join(dir, 'key.pem'),
        '-out',
        path.join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    dns.records.set('site.example.test', { A: ['127.0.0.2'] });
    let published = '';
    const site = createHttpsServer(
      { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
      (req, res) => {
        if (req.url === '/.well-known/cairn-verification.txt') res.end(`# Cairn\n${published}\n`);
        else res.writeHead(404).end();
      },
    );
    await new Promise<void>((resolve) => site.listen(443, '127.0.0.2', resolve));
    const tlsServer = await startTestServer({
      env: {
        CAIRN_FETCH_DNS: dns.server,
        CAIRN_FETCH_ALLOW: 'site.example.test',
        CAIRN_FETCH_CA_FILE: path.join(dir, 'cert.pem'),
      },
    });
    try {
      const agent = await createAgent(tlsServer.app.services.identity, { mode: 'READ' });
      const client = await connectClient(tlsServer.url, agent.key);
      const before = (await callTool(client, 'identity_verify_domain', { domain: 'site.example.test' })).body;
      expect(before.verified).toBe(false);
      expect(before.checks[1]).toMatchObject({ method: 'HTTPS_FILE', found: false });
      expect(before.checks[1].detail).toMatch(/does not contain the token/);
      published = before.token;
      const after = (await callTool(client, 'identity_verify_domain', { domain: 'site.example.test' })).body;
      expect(after).toMatchObject({ verified: true });
      expect(after.checks[1]).toMatchObject({ method: 'HTTPS_FILE', found: true });
      await client.close();
    } finally {
      await tlsServer.close();
      site.closeAllConnections();
      await new Promise((r) => site.close(r));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
