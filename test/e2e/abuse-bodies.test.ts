import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../support/factories.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 40 item 3, standing abuse suite: large bodies. One owner sends four imports of 8.9 MB at
 * once (11.9 MB bodies, from a process of their own) while another owner imports a large file
 * and `/health` is asked every 10 ms. Two of the four are read (off the main thread); the others
 * are told that owner's large uploads are in flight; the other owner's import is stored whole;
 * `/health` answers throughout. How fast it answers is measured by `npm run bench -- bodies`,
 * not here. And a large body is refused for what is wrong with it in the words a small one gets.
 */

const CLIENT = fileURLToPath(new URL('../support/large-upload-client.mjs', import.meta.url));

let server: TestServer;
let attacker: string;
let other: string;
beforeAll(async () => {
  server = await startTestServer();
  const identity = server.app.services.identity;
  const tokenOfNewOwner = async () =>
    (await identity.addOwnerToken((await createAgent(identity)).ownerEmail, 'abuse', 1)).token;
  attacker = await tokenOfNewOwner();
  other = await tokenOfNewOwner();
});
afterAll(async () => {
  await server?.close();
});

interface ClientReport {
  body_bytes: number;
  uploads: Array<{ status: number; code: string | null; reason: string | null }>;
  latencies: number[];
}

/** Runs the upload client in its own process: `count` imports of `mb` MB with `token`. */
function uploadFlood(token: string, count: number, mb: number): Promise<ClientReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLIENT, server.url, token, String(count), String(mb)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk) => (out += chunk));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as ClientReport) : reject(new Error(`client exited ${code}`)),
    );
  });
}

const post = (token: string, body: string) =>
  fetch(`${server.url}/v1/research/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
  });

/** A text file of about `bytes` bytes whose every line is different. */
const textOf = (label: string, bytes: number) =>
  Array.from({ length: Math.ceil(bytes / 100) }, (_, i) => `${label} line ${i} `.padEnd(99, '.')).join('\n');

describe('four large imports at once from one owner', () => {
  it("are read two at a time; another owner's large import is stored whole meanwhile", async () => {
    const flood = uploadFlood(attacker, 4, 8.9);
    flood.catch(() => {});
    // The other owner's file, sent while the flood is in flight: 6 MB as base64 (an 8 MB body).
    await new Promise((r) => setTimeout(r, 600));
    const file = Buffer.from(textOf('other owner', 6_000_000));
    const res = await post(other, JSON.stringify({ format: 'text', data_base64: file.toString('base64') }));
    const mine = (await res.json()) as { evidence_id: string; body_hash: string; total_chars: number };
    expect(res.status, JSON.stringify(mine)).toBe(201);
    expect(mine.body_hash).toBe(`sha256:${createHash('sha256').update(file).digest('hex')}`);
    // The exact bytes come back.
    const original = await fetch(`${server.url}/v1/research/evidence/${mine.evidence_id}/original`, {
      headers: { authorization: `Bearer ${other}` },
    });
    expect(Buffer.from(await original.arrayBuffer()).equals(file)).toBe(true);

    const report = await flood;
    expect(report.body_bytes).toBeGreaterThan(11_000_000);
    const stored = report.uploads.filter((u) => u.status === 201);
    const held = report.uploads.filter((u) => u.status === 429);
    expect(stored.length, JSON.stringify(report.uploads)).toBe(2);
    expect(held.length).toBe(2);
    for (const u of held) expect(u).toMatchObject({ code: 'RATE_LIMITED', reason: 'LARGE_BODIES_IN_FLIGHT' });
    // /health answered every time it was asked, all through the flood.
    expect(report.latencies.length).toBeGreaterThan(10);
  });

  it('lets the owner send again once an upload is answered, and says so when refused', async () => {
    const res = await post(attacker, JSON.stringify({ format: 'text', text: textOf('again', 2_000_000) }));
    expect(res.status).toBe(201);
  });
});

describe('a large body refused for what is wrong with it, as a small one is', () => {
  const big = 'A'.repeat(1_500_000);

  it('base64 that is not base64', async () => {
    for (const data of [`${big}*`, '*A==']) {
      const res = await post(attacker, JSON.stringify({ format: 'text', data_base64: data }));
      const body = (await res.json()) as { detail: unknown };
      expect(res.status).toBe(422);
      expect(body.detail).toEqual([
        { loc: ['body', 'data_base64'], msg: 'standard base64 without line breaks', type: 'custom' },
      ]);
    }
  });

  it('text with a lone surrogate, or a NUL', async () => {
    for (const [text, type] of [
      [`${big}\uD800`, 'lone_surrogate'],
      [`${big}\u0000`, 'nul_character'],
      ['\uD800', 'lone_surrogate'],
    ] as const) {
      const res = await post(attacker, JSON.stringify({ format: 'text', text }));
      const body = (await res.json()) as { detail: Array<{ loc: unknown; type: string }> };
      expect(res.status).toBe(422);
      expect(body.detail[0]).toMatchObject({ loc: ['body', 'text'], type });
    }
  });

  it('a prototype key, JSON that does not parse, and a body over the route limit', async () => {
    const refusalOf = async (text: string) => {
      const res = await post(attacker, `{"format":"text","text":"${text}","__proto__":{"x":1}}`);
      const { error } = (await res.json()) as { error: { code: string; message: string } };
      return { status: res.status, code: error.code, message: error.message };
    };
    const large = await refusalOf(big);
    expect(large).toEqual(await refusalOf('small'));
    expect(large.status).toBe(400);
    expect(large.message).toContain('"__proto__"');

    const broken = await post(attacker, `{"format":"text","text":"${big}"`);
    expect(broken.status).toBe(400);

    const huge = await post(
      attacker,
      JSON.stringify({ format: 'text', data_base64: 'A'.repeat(17_000_000) }),
    );
    expect(huge.status).toBe(413);
  });

  it('a file over the import limit sent as bytes', async () => {
    // 12 MiB and one byte: valid base64 within the body limit, refused for the file's size.
    const over = Buffer.alloc(12 * 1024 * 1024 + 1, 0x41).toString('base64');
    const res = await post(attacker, JSON.stringify({ format: 'text', data_base64: over }));
    const body = (await res.json()) as { error: { code: string } };
    expect([413, 422]).toContain(res.status);
    expect(['PAYLOAD_TOO_LARGE', 'VALIDATION_FAILED']).toContain(body.error.code);
  });
});

describe('large skill bodies', () => {
  const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

  it('a zip of megabytes is read off the event loop and stored file for file; a 1 MiB file put likewise', async () => {
    const name = `big-${Date.now()}`;
    const created = await ownerApi(server, attacker, 'POST', '/v1/skills/drafts', {
      name,
      description: 'Big.',
    });
    expect(created.status).toBe(201);
    const draftId = created.body.draft_id as string;
    // Random bytes do not compress: a zip of ~3.6 MB, a body of ~4.8 MB.
    const assets = [0, 1, 2, 3].map(() => randomBytes(900_000));
    const zip = zipSync({
      'SKILL.md': Buffer.from(`---\nname: ${name}\ndescription: Big assets.\n---\n# Use\n`),
      ...Object.fromEntries(assets.map((a, i) => [`assets/part-${i}.bin`, a])),
    });
    const imported = await ownerApi(server, attacker, 'POST', `/v1/skills/drafts/${draftId}/imports`, {
      revision: created.body.revision,
      data_base64: Buffer.from(zip).toString('base64'),
    });
    expect(imported.status, JSON.stringify(imported.body).slice(0, 500)).toBe(200);
    const files = imported.body.files as Array<{ path: string; size: number; sha256: string }>;
    for (const [i, a] of assets.entries()) {
      expect(files.find((f) => f.path === `assets/part-${i}.bin`)).toMatchObject({
        size: a.length,
        sha256: sha(a),
      });
    }

    const file = randomBytes(1_000_000);
    const put = await ownerApi(server, attacker, 'PUT', `/v1/skills/drafts/${draftId}/files`, {
      revision: imported.body.revision,
      path: 'assets/put.bin',
      content_base64: file.toString('base64'),
    });
    expect(put.status, JSON.stringify(put.body).slice(0, 500)).toBe(200);
    const putFiles = put.body.files as Array<{ path: string; size: number; sha256: string }>;
    expect(putFiles.find((f) => f.path === 'assets/put.bin')).toMatchObject({
      size: file.length,
      sha256: sha(file),
    });
  });

  it('a large zip that is not one is refused whole, naming the archive', async () => {
    const created = await ownerApi(server, attacker, 'POST', '/v1/skills/drafts', {
      name: `notzip-${Date.now()}`,
      description: 'No.',
    });
    const refused = await ownerApi(
      server,
      attacker,
      'POST',
      `/v1/skills/drafts/${created.body.draft_id}/imports`,
      {
        revision: created.body.revision,
        data_base64: randomBytes(2_000_000).toString('base64'),
      },
    );
    expect(refused.status).toBe(422);
    expect(refused.body.error.details.problems.length).toBeGreaterThan(0);
  });
});
