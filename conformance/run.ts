import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { createApp } from '../src/app.ts';
import { loadAppConfig, TABLES } from '../src/domains/catalog.ts';
import { openDatabase } from '../src/storage/database.ts';
import { type Json, modernRequest, postModern } from '../test/support/mcp-modern.ts';
import { runAuthorization } from './authorization.ts';

/**
 * `npm run conformance`: Cairn measured by the official MCP conformance suite, as a client
 * would meet it. Cairn runs on a temporary embedded database with one identity (public reading
 * on); the suite, which sends no credential, reaches it through a loopback proxy that adds
 * that identity's bearer and changes nothing else (Host and Origin pass as sent, so the DNS
 * rebinding checks test Cairn's own guard). Runs the 2025-11-25 scenarios and every scenario
 * 2026-07-28 requires, the Skills extension's scenarios, and the authorization-server scenarios
 * (authorization.ts), each against its baseline-<revision>.yml (checks whose fixtures Cairn does not
 * have, each with its reason); exits 1 on any failure not listed there, or on a listed one
 * that now passes (the baseline must shrink as Cairn grows).
 *
 * The suite is pinned and runs on Node 22, both fetched from the npm registry by npx.
 */

export const SUITE = '@modelcontextprotocol/conformance@0.2.0-alpha.12';
const here = path.dirname(fileURLToPath(import.meta.url));

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** A proxy that adds one header and forwards the request and its answer byte for byte. */
function bearerProxy(target: number, bearer: string): Server {
  return createServer((req, res) => {
    const upstream = request(
      {
        host: '127.0.0.1',
        port: target,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${bearer}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    res.on('close', () => upstream.destroy());
    req.pipe(upstream);
  });
}

/**
 * A skill the identity publishes through the tools, as an agent would, so the Skills extension's
 * scenarios have an entry to check (an empty listing skips them all).
 */
async function publishSkill(serverUrl: string, bearer: string): Promise<void> {
  let id = 0;
  const call = async (name: string, args: Json): Promise<Json> => {
    const body = modernRequest(++id, 'tools/call', {
      name,
      arguments: { ...args, idempotency_key: randomBytes(9).toString('hex') },
    });
    const answer = await postModern(serverUrl, bearer, body);
    const result = answer.body?.result as Json | undefined;
    if (!result || result.isError) throw new Error(`${name} failed: ${JSON.stringify(answer.body)}`);
    return result.structuredContent as Json;
  };
  const name = 'quote-check';
  const description = 'Check every quotation against the page it came from.';
  const draft = await call('skill_draft_create', { name, description });
  let revision = draft.revision as number;
  for (const [path, content] of [
    [
      'SKILL.md',
      `---\nname: ${name}\ndescription: ${description}\nlicense: CC-BY-4.0\n---\n\n# Steps\n\nOpen references/HOW.md.\n`,
    ],
    ['references/HOW.md', '# How\n\nCompare the quotation with the page, character by character.\n'],
  ]) {
    revision = (await call('skill_draft_file_put', { draft_id: draft.draft_id, revision, path, content }))
      .revision as number;
  }
  await call('skill_version_publish', { draft_id: draft.draft_id, revision });
}

function runSuite(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn('npx', ['-y', '-p', 'node@22', '-p', SUITE, 'conformance', 'server', ...args], {
      stdio: 'inherit',
      env: { ...process.env, npm_config_loglevel: 'error' },
    });
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-conformance-'));
  const probe = createServer();
  const port = await listen(probe);
  await new Promise((r) => probe.close(r));
  const proxyServer = createServer();
  const proxyPort = await listen(proxyServer);
  await new Promise((r) => proxyServer.close(r));
  const config = loadAppConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    CAIRN_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The proxy's origin is the page origin the suite's well-behaved requests carry.
    CAIRN_ALLOWED_ORIGINS: `http://127.0.0.1:${proxyPort},http://localhost:${proxyPort}`,
  });
  const database = await openDatabase({ tables: TABLES, dataDir: path.join(dataDir, 'pg') });
  const app = await createApp(config, database, { logger: pino({ level: 'error' }) });
  await app.http.listen({ port, host: '127.0.0.1' });
  const identity = app.services.identity;
  const ownerEmail = 'conformance@example.org';
  const ownerPassword = randomBytes(18).toString('base64url');
  await identity.addOwner(ownerEmail, ownerPassword);
  const { agent_id } = await identity.addAgent({
    ownerEmail,
    displayName: 'Conformance suite',
    runtime: SUITE,
    kind: 'OWNER_CREATED',
  });
  await identity.setMode(agent_id, 'READ');
  const { project_key } = await identity.addProjectKey(agent_id, 1);
  await publishSkill(`http://127.0.0.1:${port}`, project_key);
  const proxy = bearerProxy(port, project_key);
  await new Promise<void>((resolve) => proxy.listen(proxyPort, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${proxyPort}/mcp`;
  // Each scenario's checks.json, kept for reading after the run.
  const out = path.join(here, '..', 'reports', 'conformance');
  const only = process.argv.slice(2);
  // The Skills extension's scenarios are in no revision's requirements: each is run by name.
  const skills = ['sep-2640-skills-enumeration', 'sep-2640-skills-manifest', 'sep-2640-skills-directory'];
  const runs: Array<[string, string[]]> = [
    ['2025-11-25', ['--spec-version', '2025-11-25']],
    ['2026-07-28', ['--requirements', '2026-07-28']],
    ...skills.map((scenario): [string, string[]] => [
      scenario,
      ['--spec-version', '2026-07-28', '--force', '--scenario', scenario],
    ]),
  ];
  let failed = 0;
  try {
    for (const [name, args] of runs) {
      if (only.length > 0 && !only.includes(name)) continue;
      process.stdout.write(`\n== conformance ${name} (${SUITE}) against ${url}\n`);
      const code = await runSuite([
        '--url',
        url,
        ...args,
        '--expected-failures',
        path.join(here, `baseline-${name.startsWith('sep-2640') ? 'skills' : name}.yml`),
        '-o',
        out,
      ]);
      if (code !== 0) failed++;
    }
    if (only.length === 0 || only.includes('authorization')) {
      const issuer = `http://127.0.0.1:${port}`;
      process.stdout.write(`\n== conformance authorization (${SUITE}) against ${issuer}\n`);
      const owner = { email: ownerEmail, password: ownerPassword };
      if ((await runAuthorization(SUITE, issuer, owner, out)) !== 0) failed++;
    }
  } finally {
    proxy.close();
    await app.http.close();
    await database.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(failed > 0 ? 1 : 0);
}

await main();
