import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skillUsageReports, skillVersionFiles } from '../../src/domains/skills/tables.ts';
import { newId } from '../../src/kernel/ids.ts';
import { campaignWith, type Member, newMember, ok, publishTask, refused } from '../support/campaigns.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 20 items 4 and 5: archive, block (by the owner or an operator), privacy byte deletion,
 * the version's history, activity and usage pages, diffs between versions, and the owner's
 * distribution consents.
 */

const OPERATOR_EMAIL = `operator-${randomUUID().slice(0, 8)}@example.test`;
let server: TestServer;
let operatorToken: string;
beforeAll(async () => {
  // Named operators, so the first owner of this file is not the operator by default.
  server = await startTestServer({ env: { CAIRN_OPERATOR_EMAILS: OPERATOR_EMAIL } });
  await server.app.services.identity.addOwner(OPERATOR_EMAIL, 'correct horse battery staple');
  operatorToken = await ownerTokenOf(server, { ownerEmail: OPERATOR_EMAIL });
});
afterAll(async () => {
  await server?.close();
});

const OWN = JSON.stringify({ scope: 'OWN' });
const uniqueName = () => `plover-${Math.random().toString(36).slice(2, 8)}`;

interface Author extends Member {
  token: string;
}

async function author(): Promise<Author> {
  const m = await newMember(server);
  return { ...m, token: await ownerTokenOf(server, m) };
}

/** A draft published as a version with `body` as SKILL.md's instructions. */
async function published(m: Member, body = '# Steps\n\nQuote the atlas page.\n', name = uniqueName()) {
  const draft = await ok(m, 'skill_draft_create', {
    name,
    description: 'Reads bird atlases and quotes them exactly.',
  });
  const put = await ok(m, 'skill_draft_update', {
    draft_id: draft.draft_id,
    revision: draft.revision,
    instructions: body,
  });
  const version = await ok(m, 'skill_version_publish', { draft_id: draft.draft_id, revision: put.revision });
  return {
    draftId: draft.draft_id as string,
    revision: put.revision as number,
    versionId: version.version_id as string,
    skillId: version.skill_id as string,
    version,
  };
}

/** Publishes the draft's next version after `edit` (owner API edits), answering its id. */
async function republish(a: Author, draftId: string, edits: Array<Record<string, unknown>>) {
  let draft = (await ownerApi(server, a.token, 'GET', `/v1/skills/drafts/${draftId}`)).body;
  for (const e of edits) {
    const res = await ownerApi(server, a.token, 'PUT', `/v1/skills/drafts/${draftId}/files`, {
      revision: draft.revision,
      ...e,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    draft = res.body;
  }
  const res = await ownerApi(server, a.token, 'POST', `/v1/skills/drafts/${draftId}/publish`, {
    revision: draft.revision,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.version_id as string;
}

const readAs = (versionId: string) => ({ version_id: versionId, path: 'SKILL.md', context: OWN });
const grant = (a: Author, versionId: string, granteeId: string) =>
  ownerApi(server, a.token, 'POST', `/v1/skills/versions/${versionId}/grants`, { grantee_id: granteeId });
const ownerFile = (a: Author, versionId: string) =>
  ownerApi(
    server,
    a.token,
    'GET',
    `/v1/skills/versions/${versionId}/file?context=${encodeURIComponent(OWN)}&path=SKILL.md`,
  );

describe('archive', () => {
  it('refuses new grants of an archived skill while existing grantees still read, until unarchived', async () => {
    const a = await author();
    const first = await newMember(server);
    const second = await newMember(server);
    const v = await published(a);
    expect((await grant(a, v.versionId, first.agentId)).status).toBe(201);

    const archived = await ownerApi(server, a.token, 'POST', `/v1/skills/${v.skillId}/archive`, {
      reason: 'Superseded.',
    });
    expect(archived.status).toBe(200);
    expect(archived.body).toMatchObject({
      lifecycle_status: 'ARCHIVED',
      changed: true,
      archive_reason: 'Superseded.',
    });
    const again = await ownerApi(server, a.token, 'POST', `/v1/skills/${v.skillId}/archive`, {});
    expect(again.body).toMatchObject({ lifecycle_status: 'ARCHIVED', changed: false });

    const refusedGrant = await grant(a, v.versionId, second.agentId);
    expect(refusedGrant.status).toBe(409);
    expect(refusedGrant.body.error.code).toBe('SKILL_ARCHIVED');
    const read = await ok(first, 'skill_file_get', readAs(v.versionId), false);
    expect(read.text).toContain('Quote the atlas page.');
    const listed = await ownerApi(server, a.token, 'GET', `/v1/skills?lifecycle_status=ARCHIVED`);
    expect(listed.body.versions.map((x: { version_id: string }) => x.version_id)).toContain(v.versionId);

    // Another owner does not even see the skill.
    const stranger = await author();
    const foreign = await ownerApi(server, stranger.token, 'POST', `/v1/skills/${v.skillId}/archive`, {});
    expect(foreign.status).toBe(404);

    const back = await ownerApi(server, a.token, 'POST', `/v1/skills/${v.skillId}/archive`, {
      unarchive: true,
    });
    expect(back.body).toMatchObject({ lifecycle_status: 'ACTIVE', changed: true, archived_at: null });
    expect((await grant(a, v.versionId, second.agentId)).status).toBe(201);
    const activity = await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v.versionId}/activity`);
    expect(activity.body.events.map((e: { kind: string }) => e.kind).slice(0, 3)).toEqual([
      'GRANTED',
      'UNARCHIVED',
      'ARCHIVED',
    ]);
  });
});

describe('block', () => {
  it('stops delivery to grantees but not to the owner; a stranger cannot block', async () => {
    const a = await author();
    const grantee = await newMember(server);
    const v = await published(a);
    await grant(a, v.versionId, grantee.agentId);
    await ok(grantee, 'skill_file_get', readAs(v.versionId), false);

    const noReason = await ownerApi(server, a.token, 'POST', `/v1/skills/versions/${v.versionId}/block`, {});
    expect(noReason.status).toBe(422);
    const stranger = await author();
    const foreign = await ownerApi(
      server,
      stranger.token,
      'POST',
      `/v1/skills/versions/${v.versionId}/block`,
      { reason: 'Mine?' },
    );
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('NOT_FOUND');

    const blocked = await ownerApi(server, a.token, 'POST', `/v1/skills/versions/${v.versionId}/block`, {
      reason: 'Wrong page numbers.',
    });
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({
      status: 'BLOCKED',
      blocked_by: 'OWNER',
      block_reason: 'Wrong page numbers.',
      changed: true,
    });

    const denied = await refused(grantee, 'skill_file_get', readAs(v.versionId), false);
    expect(denied.code).toBe('SKILL_BLOCKED');
    expect((await ownerFile(a, v.versionId)).status).toBe(200);
    await ok(a, 'skill_file_get', readAs(v.versionId), false);

    const lifted = await ownerApi(server, a.token, 'POST', `/v1/skills/versions/${v.versionId}/block`, {
      unblock: true,
    });
    expect(lifted.body).toMatchObject({ status: 'AVAILABLE', changed: true });
    await ok(grantee, 'skill_file_get', readAs(v.versionId), false);
  });

  it('an operator blocks any version, and only an operator lifts that block', async () => {
    const a = await author();
    const v = await published(a);
    const blocked = await ownerApi(
      server,
      operatorToken,
      'POST',
      `/v1/skills/versions/${v.versionId}/block`,
      {
        reason: 'Reported: asks for credentials.',
      },
    );
    expect(blocked.status).toBe(200);
    expect(blocked.body).toMatchObject({ status: 'BLOCKED', blocked_by: 'OPERATOR' });

    const ownerLift = await ownerApi(server, a.token, 'POST', `/v1/skills/versions/${v.versionId}/block`, {
      unblock: true,
    });
    expect(ownerLift.status).toBe(403);
    expect(ownerLift.body.error.code).toBe('SKILL_BLOCKED');
    const activity = await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v.versionId}/activity`);
    expect(activity.body.events[0]).toMatchObject({ kind: 'BLOCKED', actor: { type: 'OPERATOR' } });

    const lifted = await ownerApi(server, operatorToken, 'POST', `/v1/skills/versions/${v.versionId}/block`, {
      unblock: true,
    });
    expect(lifted.body).toMatchObject({ status: 'AVAILABLE', changed: true });
    // The operator reads nothing of it for all that: its pages are the owner's.
    expect(
      (await ownerApi(server, operatorToken, 'GET', `/v1/skills/versions/${v.versionId}/history`)).status,
    ).toBe(404);
  });
});

describe('privacy byte deletion', () => {
  it('removes the bytes for good and keeps the hashes and history', async () => {
    const a = await author();
    const v = await published(a);
    const path = `/v1/skills/versions/${v.versionId}/privacy-byte-deletion`;
    expect((await ownerApi(server, a.token, 'POST', path, { confirm: false })).status).toBe(422);
    const stranger = await author();
    expect((await ownerApi(server, stranger.token, 'POST', path, { confirm: true })).status).toBe(404);

    const deleted = await ownerApi(server, a.token, 'POST', path, {
      confirm: true,
      reason: 'Contained a home address.',
    });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({
      bytes_deleted: true,
      changed: true,
      package_sha256: v.version.package_sha256,
    });

    // The bytes are gone from the database itself, not only hidden.
    const rows = await server.database.db
      .select()
      .from(skillVersionFiles)
      .where(eq(skillVersionFiles.versionId, v.versionId));
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.content === null && /^[0-9a-f]{64}$/.test(r.sha256))).toBe(true);
    const read = await ownerFile(a, v.versionId);
    expect(read.status).toBe(410);
    expect(read.body.error.code).toBe('SKILL_BYTES_DELETED');
    expect((await refused(a, 'skill_file_get', readAs(v.versionId), false)).code).toBe('SKILL_BYTES_DELETED');

    const history = await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v.versionId}/history`);
    expect(history.body.versions[0]).toMatchObject({
      version_id: v.versionId,
      package_sha256: v.version.package_sha256,
      bytes_deleted: true,
      current: true,
    });
    const shown = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/versions/${v.versionId}?context=${encodeURIComponent(OWN)}`,
    );
    expect(shown.body.files[0]).toMatchObject({
      path: 'SKILL.md',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });

    const again = await ownerApi(server, a.token, 'POST', path, { confirm: true });
    expect(again.body).toMatchObject({ changed: false, bytes_deleted_at: deleted.body.bytes_deleted_at });
  });
});

describe('pages', () => {
  it('history, activity and usage are the owner’s, newest first, with cursors bound to them', async () => {
    const a = await author();
    const v1 = await published(a);
    const v2 = await republish(a, v1.draftId, [{ path: 'references/a.md', content: 'two' }]);
    const v3 = await republish(a, v1.draftId, [{ path: 'references/a.md', content: 'three' }]);

    const page1 = await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v2}/history?limit=2`);
    expect(page1.status).toBe(200);
    expect(page1.body.versions.map((x: { version_id: string }) => x.version_id)).toEqual([v3, v2]);
    expect(page1.body.versions.map((x: { current: boolean }) => x.current)).toEqual([false, true]);
    const cursor = page1.body.next_cursor as string;
    const page2 = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/versions/${v2}/history?limit=2&cursor=${cursor}`,
    );
    expect(page2.body.versions.map((x: { number: number }) => x.number)).toEqual([1]);
    expect(page2.body.next_cursor).toBeNull();

    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
    const bad = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/versions/${v2}/history?limit=2&cursor=${tampered}`,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('CURSOR_INVALID');
    // A cursor of one version's history is no cursor of another's, nor of its activity.
    expect(
      (await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v3}/history?cursor=${cursor}`)).status,
    ).toBe(400);
    expect(
      (await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v2}/activity?cursor=${cursor}`)).status,
    ).toBe(400);

    const stranger = await author();
    for (const page of ['history', 'activity', 'usage']) {
      const res = await ownerApi(server, stranger.token, 'GET', `/v1/skills/versions/${v2}/${page}`);
      expect(res.status, page).toBe(404);
    }

    const activity = await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v2}/activity?limit=100`);
    const kinds = activity.body.events.map((e: { kind: string }) => e.kind);
    expect(kinds).toContain('VERSION_PUBLISHED');
    expect(kinds).toContain('DRAFT_CREATED');
    expect(
      activity.body.events.every(
        (e: { version_id: string | null }) => e.version_id === null || e.version_id === v2,
      ),
    ).toBe(true);

    // Usage reports come from workers (skill_usage_report); written here as the tool would.
    const now = new Date();
    await server.database.db.insert(skillUsageReports).values(
      ['APPLIED', 'NOT_NEEDED', 'DECLINED'].map((outcome, i) => ({
        id: newId('sur', new Date(now.getTime() + i)),
        taskId: 'task_none',
        versionId: v2,
        agentId: a.agentId,
        outcome: outcome as 'APPLIED',
        createdAt: now,
      })),
    );
    const usage1 = await ownerApi(server, a.token, 'GET', `/v1/skills/versions/${v2}/usage?limit=2`);
    expect(usage1.body.reports.map((u: { outcome: string }) => u.outcome)).toEqual([
      'DECLINED',
      'NOT_NEEDED',
    ]);
    const usage2 = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/versions/${v2}/usage?limit=2&cursor=${usage1.body.next_cursor}`,
    );
    expect(usage2.body.reports.map((u: { outcome: string }) => u.outcome)).toEqual(['APPLIED']);
  });
});

describe('diff', () => {
  it('shows changed lines between two of the owner’s versions, and binary files by hash', async () => {
    const a = await author();
    const v1 = await published(a, '# Steps\n\nQuote the atlas page.\nKeep the page number.\n');
    const v2 = await republish(a, v1.draftId, [
      {
        path: 'SKILL.md',
        content: (await skillMd(a, v1.versionId)).replace(
          'Quote the atlas page.',
          'Quote the atlas page twice.',
        ),
      },
      { path: 'references/notes.md', content: 'New notes.\n' },
      { path: 'assets/map.bin', content_base64: Buffer.from([0xff, 0x00, 0xfe, 0x01]).toString('base64') },
    ]);

    const res = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/versions/${v2}/diff?other_version_id=${v1.versionId}`,
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.diff).toContain('-Quote the atlas page.\n');
    expect(res.body.diff).toContain('+Quote the atlas page twice.\n');
    expect(res.body.diff).toContain('+New notes.');
    expect(res.body.diff).toMatch(/Binary files a\/assets\/map\.bin and b\/assets\/map\.bin differ/);
    expect(res.body.truncated).toBe(false);
    const changes = Object.fromEntries(
      res.body.files.map((f: { path: string; change: string }) => [f.path, f.change]),
    );
    expect(changes).toEqual({
      'SKILL.md': 'MODIFIED',
      'references/notes.md': 'ADDED',
      'assets/map.bin': 'ADDED',
    });

    const one = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/versions/${v1.versionId}/diff?other_version_id=${v2}&path=references/notes.md`,
    );
    expect(one.body.files.map((f: { change: string }) => f.change)).toEqual(['REMOVED']);
    expect(one.body.diff).toContain('-New notes.');
    expect(one.body.diff).not.toContain('atlas');

    const stranger = await author();
    const foreign = await ownerApi(
      server,
      stranger.token,
      'GET',
      `/v1/skills/versions/${v2}/diff?other_version_id=${v1.versionId}`,
    );
    expect(foreign.status).toBe(404);
    const mine = await published(stranger);
    const mixed = await ownerApi(
      server,
      stranger.token,
      'GET',
      `/v1/skills/versions/${mine.versionId}/diff?other_version_id=${v1.versionId}`,
    );
    expect(mixed.status).toBe(404);

    await ownerApi(server, a.token, 'POST', `/v1/skills/versions/${v1.versionId}/privacy-byte-deletion`, {
      confirm: true,
    });
    const gone = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/versions/${v2}/diff?other_version_id=${v1.versionId}`,
    );
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe('SKILL_BYTES_DELETED');
  });
});

describe('distribution consents', () => {
  it('lists each live grant with how to withdraw it, and not after it is revoked', async () => {
    const a = await author();
    const grantees = [await newMember(server), await newMember(server), await newMember(server)];
    const v = await published(a);
    const ids: string[] = [];
    for (const g of grantees) ids.push((await grant(a, v.versionId, g.agentId)).body.grant_id);
    const [first, second, third] = ids;

    const page1 = await ownerApi(server, a.token, 'GET', '/v1/skills/distribution-consents?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.consents.map((c: { consent_id: string }) => c.consent_id)).toEqual([third, second]);
    expect(page1.body.consents[0]).toMatchObject({
      kind: 'GRANT',
      version_id: v.versionId,
      where: { grantee_id: grantees[2]?.agentId },
      withdraw: { method: 'POST', path: `/v1/skill-grants/${third}/revoke` },
    });
    const page2 = await ownerApi(
      server,
      a.token,
      'GET',
      `/v1/skills/distribution-consents?limit=2&cursor=${page1.body.next_cursor}`,
    );
    expect(page2.body.consents.map((c: { consent_id: string }) => c.consent_id)).toEqual([first]);
    const stranger = await author();
    const foreign = await ownerApi(
      server,
      stranger.token,
      'GET',
      `/v1/skills/distribution-consents?cursor=${page1.body.next_cursor}`,
    );
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('CURSOR_INVALID');
    expect(
      (await ownerApi(server, stranger.token, 'GET', '/v1/skills/distribution-consents')).body.consents,
    ).toEqual([]);

    const revoked = await ownerApi(server, a.token, 'POST', page1.body.consents[0].withdraw.path, {});
    expect(revoked.body.status).toBe('REVOKED');
    const after = await ownerApi(server, a.token, 'GET', '/v1/skills/distribution-consents');
    expect(after.body.consents.map((c: { consent_id: string }) => c.consent_id)).toEqual([second, first]);
  });
});

describe('distribution consents of campaigns', () => {
  it('lists library entries and task attachments, withdrawable in the owner’s own campaign, else by blocking', async () => {
    const a = await author();
    const v = await published(a);
    const campaignId = await campaignWith(a, []);
    const entry = await ok(a, 'campaign_skill_propose', { campaign_id: campaignId, version_id: v.versionId });
    const taskId = await publishTask(a, campaignId);
    const binding = await ok(a, 'task_skill_attach', {
      task_id: taskId,
      version_id: v.versionId,
      purpose: 'Quote the atlas.',
      order: 0,
      delivery: 'RECOMMENDED',
    });
    const other = await newMember(server);
    const elsewhere = await campaignWith(other, [a]);
    const foreignEntry = await ok(a, 'campaign_skill_propose', {
      campaign_id: elsewhere,
      version_id: v.versionId,
    });

    const listed = (await ownerApi(server, a.token, 'GET', '/v1/skills/distribution-consents')).body.consents;
    const byKind = (kind: string, campaign: string) =>
      listed.find(
        (c: { kind: string; where: { campaign_id: string } }) =>
          c.kind === kind && c.where.campaign_id === campaign,
      );
    expect(listed.map((c: { kind: string }) => c.kind)).toEqual([
      'CAMPAIGN_LIBRARY',
      'TASK_ATTACHMENT',
      'CAMPAIGN_LIBRARY',
    ]);
    const lib = byKind('CAMPAIGN_LIBRARY', campaignId);
    expect(lib.consent_id).toBe(entry.entry_id);
    expect(lib.withdraw).toMatchObject({ method: 'DELETE', yours: true });
    const att = byKind('TASK_ATTACHMENT', campaignId);
    expect(att).toMatchObject({
      consent_id: binding.binding_id,
      where: { task_id: taskId, delivery: 'RECOMMENDED' },
    });
    const theirs = byKind('CAMPAIGN_LIBRARY', elsewhere);
    expect(theirs.consent_id).toBe(foreignEntry.entry_id);
    expect(theirs.withdraw).toMatchObject({
      yours: false,
      instead: { path: `/v1/skills/versions/${v.versionId}/block` },
    });

    for (const c of [lib, att]) {
      const res = await ownerApi(server, a.token, c.withdraw.method, c.withdraw.path, {});
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const after = (await ownerApi(server, a.token, 'GET', '/v1/skills/distribution-consents')).body.consents;
    expect(after.map((c: { consent_id: string }) => c.consent_id)).toEqual([foreignEntry.entry_id]);
  });
});

async function skillMd(a: Author, versionId: string): Promise<string> {
  const res = await ownerFile(a, versionId);
  return res.body.text as string;
}
