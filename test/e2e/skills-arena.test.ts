import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember, startedRun } from '../support/arena.ts';
import { type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { publishSkill } from '../support/skills.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 22: skill packages shared to Arena challenge versions, and the skill contexts ARENA_RUN
 * (a run one started that still takes work) and ARENA_REVIEW (a publication of a run one took no
 * part in). One server for the file; every identity is fresh.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const OWN = JSON.stringify({ scope: 'OWN' });
const inRun = (runId: string) => JSON.stringify({ scope: 'ARENA_RUN', run_id: runId });
const inReview = (publicationId: string) =>
  JSON.stringify({ scope: 'ARENA_REVIEW', publication_id: publicationId });
const ids = (list: Record<string, unknown>) =>
  (list.versions as Array<{ version_id: string }>).map((v) => v.version_id);

/** Reads a version's SKILL.md once under `context` (a delivery to `m`). */
const readSkillMd = (m: Member, versionId: string, context: string) =>
  ok(m, 'skill_file_get', { version_id: versionId, path: 'SKILL.md', context, max_chars: 200 }, false);

async function deniedGet(m: Member, versionId: string, context: string) {
  return (await refused(m, 'skill_get', { version_id: versionId, context }, false)).code;
}

/** A publication of the (VERIFIED) run by one of its members, through arena_publications. */
async function publish(runId: string, author: Member): Promise<string> {
  const made = await ok(author, 'arena_publications', {
    action: 'CREATE',
    run_id: runId,
    title: 'How I cited it',
    body: 'Read the atlas first.',
    artifact_ids: [],
  });
  expect(made.publication_id).toMatch(/^pub_/);
  return made.publication_id as string;
}

describe('arena_skill_share and the Arena contexts', () => {
  let sharer: ArenaMember;
  let used: { versionId: string; skillMd: string };
  let sharedRunId: string;
  let packageId: string;

  it('shares a version of its own used in a run it started, once per challenge version', async () => {
    sharer = await arenaMember(server);
    used = await publishSkill(sharer);
    const unread = await publishSkill(sharer);
    // Offered to identities with the Arena on only.
    expect((await sharer.client.listTools()).tools.map((t) => t.name)).toContain('arena_skill_share');
    const plain = await newMember(server);
    expect((await plain.client.listTools()).tools.map((t) => t.name)).not.toContain('arena_skill_share');

    // Read before the run started: that was not a use in the run.
    await readSkillMd(sharer, unread.versionId, OWN);
    const run = await startedRun(server, sharer, 'cite-quotation');
    sharedRunId = run.runId;
    await readSkillMd(sharer, used.versionId, OWN);

    // Used in the run means delivered to the sharer while the run went on.
    const notUsed = await refused(sharer, 'arena_skill_share', {
      version_id: unread.versionId,
      run_id: sharedRunId,
    });
    expect(notUsed.code).toBe('SKILL_NOT_USED_IN_RUN');
    // Another identity's run is answered like a missing one.
    const other = await arenaMember(server);
    const otherRun = await startedRun(server, other, 'cite-quotation');
    const notMine = await refused(sharer, 'arena_skill_share', {
      version_id: used.versionId,
      run_id: otherRun.runId,
    });
    expect(notMine.code).toBe('NOT_FOUND');

    const shared = await ok(sharer, 'arena_skill_share', {
      version_id: used.versionId,
      run_id: sharedRunId,
      note: 'Helped with the quotation.',
    });
    expect(shared).toMatchObject({
      created: true,
      challenge_id: 'cite-quotation',
      challenge_version: 1,
      version_id: used.versionId,
      from_run_id: sharedRunId,
      shared_by_agent_id: sharer.agentId,
      status: 'LIVE',
    });
    expect(shared.package_id).toMatch(/^apkg_/);
    expect(shared.next).toContain('ARENA_RUN');
    packageId = shared.package_id;
    const again = await ok(sharer, 'arena_skill_share', { version_id: used.versionId, run_id: sharedRunId });
    expect(again).toMatchObject({ created: false, package_id: packageId });

    // The run is verified (score 0, nothing handed in) so it can be published below.
    await ok(sharer, 'result_verify', { run_id: sharedRunId });
  });

  it('a grantee cannot share a version it only reads', async () => {
    const grantee = await arenaMember(server);
    const granted = await publishSkill(sharer);
    const grant = await ownerApi(
      server,
      sharer.ownerToken,
      'POST',
      `/v1/skills/versions/${granted.versionId}/grants`,
      {
        grantee_id: grantee.agentId,
      },
    );
    expect(grant.status).toBe(201);
    const run = await startedRun(server, grantee, 'cite-quotation');
    await readSkillMd(grantee, granted.versionId, OWN);
    const refusedShare = await refused(grantee, 'arena_skill_share', {
      version_id: granted.versionId,
      run_id: run.runId,
    });
    expect(refusedShare.code).toBe('SKILL_CONTEXT_DENIED');
    expect(refusedShare.details.access).toBe('GRANT');
  });

  it('ARENA_RUN of a run of that challenge version reaches it (list, get, window, download); withdrawal stops it at once; an ended run does not', async () => {
    const reader = await arenaMember(server);
    const run = await startedRun(server, reader, 'cite-quotation');
    const ctx = inRun(run.runId);
    const notShared = await publishSkill(sharer);

    const listed = await ok(reader, 'skill_list', { context: ctx }, false);
    expect(ids(listed)).toContain(used.versionId);
    expect(ids(listed)).not.toContain(notShared.versionId);
    expect(await deniedGet(reader, notShared.versionId, ctx)).toBe('SKILL_CONTEXT_DENIED');

    const got = await ok(reader, 'skill_get', { version_id: used.versionId, context: ctx }, false);
    expect(got.access).toBe('ARENA_RUN');
    const window = await readSkillMd(reader, used.versionId, ctx);
    expect(window.untrusted).toBe(true);
    expect(used.skillMd.startsWith(window.text)).toBe(true);
    expect(window.range.next_offset).toBe(200);
    const pkg = await ok(reader, 'skill_package_get', { version_id: used.versionId, context: ctx }, false);
    const zip = await fetch(pkg.download_url);
    expect(zip.status).toBe(200);
    const sha = createHash('sha256')
      .update(Buffer.from(await zip.arrayBuffer()))
      .digest('hex');
    expect(sha).toBe(pkg.package_sha256);

    // What the reader was given in its run is not its to pass on.
    const passOn = await refused(reader, 'arena_skill_share', {
      version_id: used.versionId,
      run_id: run.runId,
    });
    expect(passOn.code).toBe('SKILL_CONTEXT_DENIED');

    // A stranger to the run (Arena on, no part in it) reaches nothing under it.
    const stranger = await arenaMember(server);
    expect((await refused(stranger, 'skill_list', { context: ctx }, false)).code).toBe(
      'SKILL_CONTEXT_DENIED',
    );
    expect(await deniedGet(stranger, used.versionId, ctx)).toBe('SKILL_CONTEXT_DENIED');

    // Withdrawn by the version's owner: the reader's next read is refused, and the list is empty of it.
    const withdrawn = await ownerApi(
      server,
      sharer.ownerToken,
      'DELETE',
      `/v1/arena/skill-packages/${packageId}`,
    );
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body).toMatchObject({ status: 'WITHDRAWN', changed: true });
    expect(await deniedGet(reader, used.versionId, ctx)).toBe('SKILL_CONTEXT_DENIED');
    expect(ids(await ok(reader, 'skill_list', { context: ctx }, false))).not.toContain(used.versionId);
    const twice = await ownerApi(
      server,
      sharer.ownerToken,
      'DELETE',
      `/v1/arena/skill-packages/${packageId}`,
    );
    expect(twice.body.changed).toBe(false);

    // Shared again (a new package), then the run ends: refused again.
    const reshared = await ok(sharer, 'arena_skill_share', {
      version_id: used.versionId,
      run_id: sharedRunId,
    });
    expect(reshared.created).toBe(true);
    packageId = reshared.package_id;
    await ok(reader, 'skill_get', { version_id: used.versionId, context: ctx }, false);
    const assignmentId = (await ok(reader, 'capabilities_describe', {}, false)).arena_assignment
      .assignment_id;
    const cancelled = await ownerApi(
      server,
      reader.ownerToken,
      'DELETE',
      `/v1/arena/assignments/${assignmentId}`,
    );
    expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
    expect(await deniedGet(reader, used.versionId, ctx)).toBe('SKILL_CONTEXT_DENIED');
    expect((await refused(reader, 'skill_list', { context: ctx }, false)).code).toBe('SKILL_CONTEXT_DENIED');
  });

  it('ARENA_RUN of a run of another challenge does not reach it', async () => {
    const elsewhere = await arenaMember(server);
    const run = await startedRun(server, elsewhere, 'reconcile-sources');
    expect(await deniedGet(elsewhere, used.versionId, inRun(run.runId))).toBe('SKILL_CONTEXT_DENIED');
    expect(ids(await ok(elsewhere, 'skill_list', { context: inRun(run.runId) }, false))).not.toContain(
      used.versionId,
    );
  });

  it('ARENA_REVIEW of a publication reaches it for a reviewer, not for a member of the published run', async () => {
    const publicationId = await publish(sharedRunId, sharer);
    const reviewer = await arenaMember(server);
    const ctx = inReview(publicationId);
    expect(ids(await ok(reviewer, 'skill_list', { context: ctx }, false))).toContain(used.versionId);
    const got = await ok(reviewer, 'skill_get', { version_id: used.versionId, context: ctx }, false);
    expect(got.access).toBe('ARENA_REVIEW');
    await readSkillMd(reviewer, used.versionId, ctx);
    expect(await deniedGet(sharer, used.versionId, ctx)).toBe('SKILL_CONTEXT_DENIED');
    expect((await refused(sharer, 'skill_list', { context: ctx }, false)).code).toBe('SKILL_CONTEXT_DENIED');
    // The Arena turned off for the reviewer: its next read is refused.
    await ownerApi(server, reviewer.ownerToken, 'POST', `/v1/agents/${reviewer.agentId}/arena`, {
      enabled: false,
    });
    expect(await deniedGet(reviewer, used.versionId, ctx)).toBe('SKILL_CONTEXT_DENIED');
  });
});

describe('the owner routes of Arena packages', () => {
  it('create, list with a cursor, get, file window and download; a stranger owner gets NOT_FOUND', async () => {
    const author = await arenaMember(server);
    const token = author.ownerToken;
    const a = await publishSkill(author);
    const b = await publishSkill(author);
    const base = '/v1/arena/challenges/reconcile-sources/versions/1/skill-packages';

    const created = await ownerApi(server, token, 'POST', '/v1/arena/skill-packages', {
      version_id: a.versionId,
      challenge_id: 'reconcile-sources',
      version: 1,
      note: 'For the lighthouse dates.',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ created: true, shared_by_agent_id: null, from_run_id: null });
    const again = await ownerApi(server, token, 'POST', '/v1/arena/skill-packages', {
      version_id: a.versionId,
      challenge_id: 'reconcile-sources',
      version: 1,
    });
    expect(again.status).toBe(200);
    expect(again.body.package_id).toBe(created.body.package_id);
    const second = await ownerApi(server, token, 'POST', '/v1/arena/skill-packages', {
      version_id: b.versionId,
      challenge_id: 'reconcile-sources',
      version: 1,
    });
    expect(second.status).toBe(201);
    const unknown = await ownerApi(server, token, 'POST', '/v1/arena/skill-packages', {
      version_id: a.versionId,
      challenge_id: 'reconcile-sources',
      version: 99,
    });
    expect(unknown.status).toBe(404);

    const page1 = await ownerApi(server, token, 'GET', `${base}?limit=1`);
    expect(page1.status).toBe(200);
    expect(page1.body.packages.map((p: { version_id: string }) => p.version_id)).toEqual([b.versionId]);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    const page2 = await ownerApi(
      server,
      token,
      'GET',
      `${base}?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`,
    );
    expect(page2.body.packages.map((p: { version_id: string }) => p.version_id)).toEqual([a.versionId]);
    expect(page2.body.next_cursor).toBeNull();
    expect((await ownerApi(server, token, 'GET', `${base}?limit=101`)).status).toBe(422);

    const pkgPath = `/v1/arena/skill-packages/${created.body.package_id}`;
    const got = await ownerApi(server, token, 'GET', `${pkgPath}?context=${encodeURIComponent(OWN)}`);
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ version_id: a.versionId, access: 'OWNER' });
    expect(got.body.files.map((f: { path: string }) => f.path)).toEqual(['SKILL.md']);
    expect((await ownerApi(server, token, 'GET', pkgPath)).status).toBe(422);
    const file = `${pkgPath}/file?context=${encodeURIComponent(OWN)}&path=SKILL.md`;
    const window = await ownerApi(server, token, 'GET', `${file}&max_chars=200`);
    expect(window.status).toBe(200);
    expect(window.body).toMatchObject({ untrusted: true, range: { offset: 0, next_offset: 200 } });
    const download = await fetch(`${server.url}${file}&download=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(download.status).toBe(200);
    expect(await download.text()).toBe(a.skillMd);

    const consents = await ownerApi(server, token, 'GET', '/v1/skills/distribution-consents');
    expect(consents.body.consents).toContainEqual(
      expect.objectContaining({
        kind: 'ARENA_PACKAGE',
        consent_id: created.body.package_id,
        withdraw: expect.objectContaining({ method: 'DELETE', path: pkgPath, yours: true }),
      }),
    );

    // Another owner: the package, its file, its withdrawal and a share of the version are NOT_FOUND.
    const stranger = await newMember(server);
    const other = await ownerTokenOf(server, stranger);
    expect(
      (await ownerApi(server, other, 'GET', `${pkgPath}?context=${encodeURIComponent(OWN)}`)).status,
    ).toBe(404);
    expect((await ownerApi(server, other, 'GET', `${file}&max_chars=200`)).body.error.code).toBe('NOT_FOUND');
    expect((await ownerApi(server, other, 'DELETE', pkgPath)).status).toBe(404);
    const theirs = await ownerApi(server, other, 'POST', '/v1/arena/skill-packages', {
      version_id: a.versionId,
      challenge_id: 'cite-quotation',
      version: 1,
    });
    expect(theirs.status).toBe(404);
    expect((await ownerApi(server, other, 'GET', base)).body.packages).toEqual([]);

    // A run of reconcile-sources now reaches the owner's share; a blocked version is no longer delivered.
    const runner = await arenaMember(server);
    const run = await startedRun(server, runner, 'reconcile-sources');
    await readSkillMd(runner, a.versionId, inRun(run.runId));
    const blocked = await ownerApi(server, token, 'POST', `/v1/skills/versions/${a.versionId}/block`, {
      reason: 'Outdated.',
    });
    expect(blocked.status).toBe(200);
    const read = await refused(
      runner,
      'skill_file_get',
      { version_id: a.versionId, path: 'SKILL.md', context: inRun(run.runId) },
      false,
    );
    expect(read.code).toBe('SKILL_BLOCKED');
    const blockedShare = await ownerApi(server, token, 'POST', '/v1/arena/skill-packages', {
      version_id: a.versionId,
      challenge_id: 'cite-quotation',
      version: 1,
    });
    expect(blockedShare.body.error.code).toBe('SKILL_BLOCKED');
    const deleted = await ownerApi(
      server,
      token,
      'POST',
      `/v1/skills/versions/${b.versionId}/privacy-byte-deletion`,
      {
        confirm: true,
      },
    );
    expect(deleted.status).toBe(200);
    const gone = await refused(
      runner,
      'skill_file_get',
      { version_id: b.versionId, path: 'SKILL.md', context: inRun(run.runId) },
      false,
    );
    expect(gone.code).toBe('SKILL_BYTES_DELETED');
  });
});
