import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { campaignWith, type Member, newMember, ok, publishTask } from '../support/campaigns.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { type Json, modernRequest, postModern } from '../support/mcp-modern.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { longBody, publishSkill, uniqueSkillName } from '../support/skills.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * MCP's Skills extension (io.modelcontextprotocol/skills, issue 42 item 5) on the 2026-07-28
 * path: skills/list and skills/get give the skill versions a caller may read now, under the
 * contexts it stands in, with skill:// URIs and per-file sha256 digests; resources/read serves
 * their files byte for byte. Everything is what a client observes, and every version here was
 * published, granted and attached through the real tools and owner API.
 */

const EXTENSION = 'io.modelcontextprotocol/skills';
let server: TestServer;
let author: Member;
let stranger: Member;

beforeAll(async () => {
  server = await startTestServer();
  author = await newMember(server);
  stranger = await newMember(server);
});
afterAll(async () => {
  await server?.close();
});

let nextId = 1;
async function rpc(m: Member, method: string, params: Json = {}): Promise<{ status: number; json: Json }> {
  const res = await postModern(server.url, m.key, modernRequest(nextId++, method, params));
  return { status: res.status, json: res.body ?? {} };
}

async function result(m: Member, method: string, params: Json = {}): Promise<Json> {
  const { status, json } = await rpc(m, method, params);
  expect(status, JSON.stringify(json)).toBe(200);
  expect(json.error, JSON.stringify(json.error)).toBeUndefined();
  return json.result as Json;
}

/** Every entry of skills/list, page after page. */
async function listAll(m: Member): Promise<{ entries: Json[]; pages: number }> {
  const entries: Json[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await result(m, 'skills/list', cursor ? { cursor } : {});
    entries.push(...(page.skills as Json[]));
    cursor = page.nextCursor as string | undefined;
    pages++;
  } while (cursor && pages < 20);
  return { entries, pages };
}

const sha = (bytes: string | Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** A published version with SKILL.md, a reference and a binary asset, all through the draft tools. */
async function fullSkill(m: Member) {
  const name = uniqueSkillName('ext');
  const description = 'Quote each source exactly.';
  const draft = await ok(m, 'skill_draft_create', { name, description });
  const skillMd = `---\nname: ${name}\ndescription: ${description}\nlicense: Apache-2.0\nmetadata:\n  version: "2.1"\n---\n\n${longBody(400)}See references/GUIDE.md.\n`;
  const guide = '# Guide\n\nQuotations are copied, never paraphrased.\n';
  const asset = Buffer.from([0, 159, 146, 150, 255, 1, 2, 3]);
  let revision = draft.revision as number;
  for (const file of [
    { path: 'SKILL.md', content: skillMd },
    { path: 'references/GUIDE.md', content: guide },
    { path: 'assets/logo.bin', content_base64: asset.toString('base64') },
  ]) {
    revision = (await ok(m, 'skill_draft_file_put', { draft_id: draft.draft_id, revision, ...file }))
      .revision as number;
  }
  const version = await ok(m, 'skill_version_publish', { draft_id: draft.draft_id, revision });
  const versionId = version.version_id as string;
  const root = `skill://own/${versionId}/${name}`;
  return { versionId, name, description, skillMd, guide, asset, root, uri: `${root}/SKILL.md` };
}

describe('the extension is declared', () => {
  it('in server/discover, with no optional features, beside the resources capability', async () => {
    const discovered = await result(author, 'server/discover');
    expect(discovered.capabilities.extensions).toEqual({ [EXTENSION]: {} });
    expect(discovered.capabilities.resources).toBeDefined();
  });

  it('and not where the deployment turned skills off: its methods are then unknown', async () => {
    const off = await startTestServer({ env: { CAIRN_SKILLS: 'off' } });
    try {
      const m = await newMember(off);
      const post = (method: string, params: Json = {}) =>
        postModern(off.url, m.key, modernRequest(1, method, params));
      const discovered = (await post('server/discover')).body as Json;
      expect(discovered.result.capabilities.extensions).toBeUndefined();
      const listed = await post('skills/list');
      expect(listed.status).toBe(404);
      expect(listed.body?.error.code).toBe(-32601);
    } finally {
      await off.close();
    }
  });
});

describe('skills/list and skills/get', () => {
  let skill: Awaited<ReturnType<typeof fullSkill>>;
  beforeAll(async () => {
    skill = await fullSkill(author);
  });

  it('list the caller’s own version as an entry: SKILL.md URI, the frontmatter as written, every file with digest and size', async () => {
    const page = await result(author, 'skills/list');
    expect(page).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
    const entry = (page.skills as Json[]).find((s) => s.uri === skill.uri);
    expect(entry, JSON.stringify(page.skills)).toBeDefined();
    expect(entry?.frontmatter).toEqual({
      name: skill.name,
      description: skill.description,
      license: 'Apache-2.0',
      metadata: { version: '2.1' },
    });
    expect(entry?.resources).toEqual(
      expect.arrayContaining([
        { uri: skill.uri, digest: sha(skill.skillMd), size: Buffer.byteLength(skill.skillMd) },
        {
          uri: `${skill.root}/references/GUIDE.md`,
          digest: sha(skill.guide),
          size: Buffer.byteLength(skill.guide),
        },
        { uri: `${skill.root}/assets/logo.bin`, digest: sha(skill.asset), size: skill.asset.length },
      ]),
    );
    expect(entry?.resources).toHaveLength(3);
  });

  it('get answers the same entry for its URI, with no cursor', async () => {
    const got = await result(author, 'skills/get', { uri: skill.uri });
    const listed = ((await result(author, 'skills/list')).skills as Json[]).find((s) => s.uri === skill.uri);
    expect(got.skill).toEqual(listed);
    expect(got.nextCursor).toBeUndefined();
    expect(got).toMatchObject({ ttlMs: 60_000, cacheScope: 'private' });
  });

  it('resources/read serves each file whole: text as text, bytes as base64, matching the digests', async () => {
    const manifest = await result(author, 'resources/read', { uri: skill.uri });
    expect(manifest.contents).toEqual([{ uri: skill.uri, mimeType: 'text/markdown', text: skill.skillMd }]);
    const guideUri = `${skill.root}/references/GUIDE.md`;
    const guide = await result(author, 'resources/read', { uri: guideUri });
    expect(guide.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: skill.guide });
    const asset = await result(author, 'resources/read', { uri: `${skill.root}/assets/logo.bin` });
    expect(asset.contents[0].text).toBeUndefined();
    expect(sha(Buffer.from(asset.contents[0].blob as string, 'base64'))).toBe(sha(skill.asset));
    expect(asset.contents[0].mimeType).toBe('application/octet-stream');
  });

  it('answer -32602 with the URI for a skill the caller may not read, exactly as for one that does not exist', async () => {
    const foreign = await rpc(stranger, 'skills/get', { uri: skill.uri });
    const missing = await rpc(stranger, 'skills/get', {
      uri: 'skill://own/skv_01JZZZZZZZZZZZZZZZZZZZZZZZ/nothing/SKILL.md',
    });
    for (const answer of [foreign, missing]) {
      expect(answer.status).toBe(200);
      expect(answer.json.error.code).toBe(-32602);
      expect(answer.json.error.message).toMatch(/^Skill not found: skill:\/\/own\//);
    }
    expect(foreign.json.error.data.uri).toBe(skill.uri);
    expect(Object.keys(foreign.json.error.data).sort()).toEqual(Object.keys(missing.json.error.data).sort());
    // Its files are refused alike, and nothing of them is served.
    const read = await rpc(stranger, 'resources/read', { uri: skill.uri });
    expect(read.json.error.code).toBe(-32602);
    expect(JSON.stringify(read.json)).not.toContain('Quote each source');
    expect(((await result(stranger, 'skills/list')).skills as Json[]).map((s) => s.uri)).not.toContain(
      skill.uri,
    );
  });

  it('refuse a URI whose last skill-path segment is not the version’s name, a SKILL.md-less get, and a malformed URI', async () => {
    const renamed = skill.uri.replace(`/${skill.name}/`, '/other-name/');
    for (const uri of [
      renamed,
      `${skill.root}/references/GUIDE.md`,
      'skill://own/not-a-version/x/SKILL.md',
    ]) {
      const answer = await rpc(author, 'skills/get', { uri });
      expect(answer.json.error?.code, uri).toBe(-32602);
    }
    expect(
      (await rpc(author, 'resources/read', { uri: renamed.replace('SKILL.md', 'references/GUIDE.md') })).json
        .error.code,
    ).toBe(-32602);
    expect((await rpc(author, 'skills/get', {})).json.error.code).toBe(-32602);
  });

  it('follow a grant: listed for the grantee while it lasts, refused at once when revoked', async () => {
    const token = await ownerTokenOf(server, author);
    const grant = await ownerApi(server, token, 'POST', `/v1/skills/versions/${skill.versionId}/grants`, {
      grantee_id: stranger.agentId,
    });
    expect(grant.status).toBe(201);
    const listed = (await listAll(stranger)).entries.map((s) => s.uri);
    expect(listed).toContain(skill.uri);
    expect((await result(stranger, 'resources/read', { uri: skill.uri })).contents[0].text).toBe(
      skill.skillMd,
    );
    await ownerApi(server, token, 'POST', `/v1/skill-grants/${grant.body.grant_id}/revoke`, {
      reason: 'done',
    });
    expect((await rpc(stranger, 'skills/get', { uri: skill.uri })).json.error.code).toBe(-32602);
    expect((await listAll(stranger)).entries.map((s) => s.uri)).not.toContain(skill.uri);
  });
});

describe('a 2025-11-25 session', () => {
  it('is offered the extension at initialize and gets the same entries and files', async () => {
    const skill = await fullSkill(author);
    const client = await connectClient(server.url, author.key);
    try {
      expect(client.getServerCapabilities()?.extensions).toEqual({ [EXTENSION]: {} });
      const entry = z.object({ uri: z.string() }).passthrough();
      const listed = await client.request(
        { method: 'skills/list', params: {} },
        z.object({ skills: z.array(entry), nextCursor: z.string().optional() }).passthrough(),
      );
      const modern = ((await result(author, 'skills/list')).skills as Json[]).find(
        (s) => s.uri === skill.uri,
      );
      expect(listed.skills.find((s) => s.uri === skill.uri)).toEqual(modern);
      const got = await client.request(
        { method: 'skills/get', params: { uri: skill.uri } },
        z.object({ skill: entry }).passthrough(),
      );
      expect(got.skill).toEqual(modern);
      const read = await client.readResource({ uri: skill.uri });
      expect(read.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: skill.skillMd });
      await expect(
        client.request(
          { method: 'skills/get', params: { uri: skill.uri.replace(skill.name, 'other') } },
          z.object({}),
        ),
      ).rejects.toMatchObject({ code: -32602 });
    } finally {
      await client.close();
    }
  });
});

describe('a task’s skills', () => {
  it('are listed under the task for the leaseholder, and reading SKILL.md through resources/read is its delivery', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const skill = await publishSkill(coordinator);
    const taskId = await publishTask(coordinator, campaignId);
    await ok(coordinator, 'task_skill_attach', {
      task_id: taskId,
      version_id: skill.versionId,
      purpose: 'Quote sources the house way.',
      order: 1,
      delivery: 'READ_BEFORE_COMPLETION',
    });
    const uri = `skill://task/${taskId}/${skill.versionId}/${skill.name}/SKILL.md`;
    // Before the claim the worker has no standing on the task: nothing of it is listed.
    expect((await listAll(worker)).entries.map((s) => s.uri)).not.toContain(uri);
    const lease = (await ok(worker, 'task_claim', { task_id: taskId })).lease.lease_id as string;
    const { entries } = await listAll(worker);
    expect(entries.map((s) => s.uri)).toContain(uri);
    // The campaign's library is walked too; this campaign's is empty, so the task is what lists it.
    const complete = async () => {
      const res = await callTool(worker.client, 'task_complete', {
        task_id: taskId,
        lease_id: lease,
        evidence_ids: ['evd_01JNOTARECORDEDSOURCE0000'],
        claimed_outcome: 'COMPLETE',
        summary: 'The curlew nests on moorland.',
        idempotency_key: `key-${Math.random()}`,
      });
      return (res.body.error as { code: string }).code;
    };
    expect(await complete()).toBe('SKILL_READ_REQUIRED');
    const read = await result(worker, 'resources/read', { uri });
    expect(read.contents[0].text).toBe(skill.skillMd);
    // The whole SKILL.md was delivered under the lease: the gate passes and the next check speaks.
    expect(await complete()).not.toBe('SKILL_READ_REQUIRED');
    // Another participant holding no lease gets nothing by the same URI.
    expect((await rpc(author, 'resources/read', { uri })).json.error.code).toBe(-32602);
  });
});

describe('pages', () => {
  it('cut the listing into whole entries that together list every version once; a cursor works for its caller only', async () => {
    const prolific = await newMember(server);
    const published = new Set<string>();
    for (let i = 0; i < 23; i++) {
      const v = await publishSkill(prolific, { body: `Step ${i}.` });
      published.add(`skill://own/${v.versionId}/${v.name}/SKILL.md`);
    }
    const first = await result(prolific, 'skills/list');
    expect(first.skills).toHaveLength(20);
    expect(typeof first.nextCursor).toBe('string');
    const { entries, pages } = await listAll(prolific);
    expect(pages).toBe(2);
    const uris = entries.map((s) => s.uri as string);
    expect(new Set(uris).size).toBe(uris.length);
    expect(new Set(uris)).toEqual(published);
    const stolen = await rpc(author, 'skills/list', { cursor: first.nextCursor });
    expect(stolen.json.error.code).toBe(-32602);
    expect((await rpc(prolific, 'skills/list', { cursor: 'not-a-cursor' })).json.error.code).toBe(-32602);
  });
});
