import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { publishSkill, uniqueSkillName } from '../support/skills.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 20 (console): the owner's skills pages. The list shows the account's versions and
 * drafts and starts a draft; a draft's page shows its files and problems, edits SKILL.md against
 * the current revision and publishes; a version's page shows its terms, files and SKILL.md as
 * escaped, untrusted text, and grants, revokes, blocks, archives and deletes bytes through plain
 * forms, each with the CSRF token, each taking effect for the agents at once. Another owner's
 * draft or version is not found; with skills off, the list says so and offers nothing.
 */

const PASSWORD = 'correct horse battery staple';
const OWN = JSON.stringify({ scope: 'OWN' });

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

/** A signed-in owner and the email their agents are made under. */
async function signedIn(s: TestServer = server): Promise<{ visitor: Visitor; email: string }> {
  const email = uniqueEmail();
  await s.app.services.identity.addOwner(email, PASSWORD);
  const visitor = new Visitor(s.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  return { visitor, email };
}

/** One section of a page (`<section class="panel…" id="…">`), or '' when it is not there. */
function panel(page: Page, id: string): string {
  const m = new RegExp(`<section class="panel[^"]*" id="${id}">([\\s\\S]*?)</section>`).exec(page.text);
  return m?.[1] ?? '';
}

/** The error notice as a person reads it (the page escapes apostrophes and quotes). */
const shownError = (page: Page) =>
  (errorOf(page.text) ?? '').replaceAll('&#39;', "'").replaceAll('&quot;', '"');

const revisionOf = (page: Page) => Number(/name="revision" value="(\d+)"/.exec(page.text)?.[1]);

/** Starts a draft through the list's form; answers its page path. */
async function startDraft(visitor: Visitor, name: string, description?: string): Promise<string> {
  const made = await visitor.submit('/console/skills', '/console/skills/drafts', { name, description });
  expect(made.status).toBe(303);
  const m = /^(\/console\/skills\/drafts\/sdr_[0-9A-Za-z]+)\?done=created$/.exec(made.location ?? '');
  expect(m, made.location ?? '').not.toBeNull();
  return m?.[1] as string;
}

/** Publishes a draft through its page; answers the version's page path. */
async function publishDraft(visitor: Visitor, draftPath: string): Promise<string> {
  const page = await visitor.get(draftPath);
  const published = await visitor.submit(draftPath, `${draftPath}/publish`, {
    revision: String(revisionOf(page)),
  });
  expect(published.status).toBe(303);
  const m = /^(\/console\/skills\/versions\/skv_[0-9A-Za-z]+)\?done=published$/.exec(
    published.location ?? '',
  );
  expect(m, published.location ?? '').not.toBeNull();
  return m?.[1] as string;
}

const readArgs = (versionId: string) => ({ version_id: versionId, path: 'SKILL.md', context: OWN });
const grantIdOf = (page: Page) => /id="grant-(sgr_[0-9A-Za-z]+)"/.exec(page.text)?.[1] as string;

describe('the skills list and drafts', () => {
  it('lists versions and drafts, starts a draft from the form, and links each to its page', async () => {
    const { visitor, email } = await signedIn();
    const agent = await newMember(server, email);
    try {
      const v = await publishSkill(agent);
      const list = await visitor.get('/console/skills');
      expect(list.status).toBe(200);
      expect(list.text).toContain('<a href="/console/skills" aria-current="page">Skills</a>');
      const row = new RegExp(`<tr id="version-${v.versionId}">([\\s\\S]*?)</tr>`).exec(list.text)?.[1] ?? '';
      expect(row).toContain(`<a href="/console/skills/versions/${v.versionId}">${v.name}</a>`);
      expect(row).toContain('<td>1</td>');
      expect(row).toContain('AVAILABLE');
      expect(row).toContain('ACTIVE');
      expect(row).toContain(agent.agentId);
      const got = await ok(agent, 'skill_get', { version_id: v.versionId, context: OWN }, false);
      expect(row).toContain(
        `title="${got.package_sha256}">${String(got.package_sha256).slice(0, 12)}</code>`,
      );

      // A draft with a description is valid at once; one without has a problem.
      const name = uniqueSkillName('console');
      const draftPath = await startDraft(visitor, name, 'Check quotations against their pages.');
      const draft = await visitor.get(`${draftPath}?done=created`);
      expect(draft.status).toBe(200);
      expect(draft.text).toContain('Draft started.');
      expect(panel(draft, 'validation')).toContain('VALID');
      expect(panel(draft, 'files')).toContain('<code>SKILL.md</code>');
      expect(panel(draft, 'skill-md')).toContain(`name: ${name}`);
      expect(panel(draft, 'skill-md')).toContain('description: Check quotations against their pages.');

      const bare = uniqueSkillName('bare');
      const barePath = await startDraft(visitor, bare);
      const barePage = await visitor.get(barePath);
      expect(panel(barePage, 'validation')).toContain('1 problem');
      expect(panel(barePage, 'validation')).toContain('<code>SKILL.md#description</code>');
      expect(panel(barePage, 'validation')).toContain('<code>DESCRIPTION_LENGTH</code>');

      const listed = await visitor.get('/console/skills');
      const drafts = panel(listed, 'drafts');
      expect(drafts).toContain(`<a href="${draftPath}">${name}</a>`);
      expect(drafts).toContain(`<a href="${barePath}">${bare}</a>`);
      expect(drafts).toContain('VALID');
      expect(drafts).toContain('1 problem');
      expect(drafts).toContain('you (owner)');

      // A name the format refuses is refused on the form, with what was typed kept.
      const wrong = await visitor.submit('/console/skills', '/console/skills/drafts', { name: 'Bad Name' });
      expect(wrong.status).toBe(422);
      expect(shownError(wrong)).toContain('lowercase letters, digits and single hyphens');
      expect(wrong.text).toContain('value="Bad Name"');

      // Without the CSRF token nothing is made.
      const forged = await visitor.post('/console/skills/drafts', { name: uniqueSkillName('forged') });
      expect(forged.status).toBe(403);
      const after = await visitor.get('/console/skills');
      expect(after.text).not.toContain('forged-');
    } finally {
      await agent.client.close();
    }
  });

  it('edits SKILL.md at the current revision, refuses a stale one showing the current state, and publishes', async () => {
    const { visitor } = await signedIn();
    const name = uniqueSkillName('edit');
    const draftPath = await startDraft(visitor, name, 'Read atlases carefully.');
    const first = await visitor.get(draftPath);
    expect(revisionOf(first)).toBe(1);

    // A browser sends CRLF line breaks; they are stored as LF.
    const text = `---\r\nname: ${name}\r\ndescription: Read atlases carefully.\r\nlicense: MIT\r\nallowed-tools: Bash(git:*) Read\r\n---\r\n\r\n# Steps\r\n\r\nOpen the atlas at its index.\r\n`;
    const saved = await visitor.submit(draftPath, `${draftPath}/skill-md`, { revision: '1', content: text });
    expect([saved.status, saved.location]).toEqual([303, `${draftPath}?done=saved`]);
    const second = await visitor.get(saved.location ?? '');
    expect(second.text).toContain('SKILL.md saved.');
    expect(revisionOf(second)).toBe(2);
    expect(panel(second, 'skill-md')).toContain('Open the atlas at its index.\n</textarea>');
    expect(panel(second, 'skill-md')).not.toContain('\r');

    // Revision 1 is stale now: refused, nothing saved, the current text shown, the typed text kept.
    const stale = await visitor.submit(draftPath, `${draftPath}/skill-md`, {
      revision: '1',
      content: `---\nname: ${name}\ndescription: Overwritten.\n---\n\nLost words.\n`,
    });
    expect(stale.status).toBe(409);
    expect(shownError(stale)).toContain('is at revision 2, not 1; nothing was changed.');
    expect(revisionOf(stale)).toBe(2);
    expect(stale.text).toMatch(
      /<textarea[^>]*>\n---\nname: [^<]*Open the atlas at its index\.\n<\/textarea>/,
    );
    expect(stale.text).toContain('Your unsaved text');
    expect(stale.text).toContain('Lost words.');
    expect((await visitor.get(draftPath)).text).not.toContain('Overwritten.');

    // Publishing a stale revision is refused as well; the current one publishes.
    const stalePublish = await visitor.submit(draftPath, `${draftPath}/publish`, { revision: '1' });
    expect(stalePublish.status).toBe(409);
    expect(shownError(stalePublish)).toContain('Nothing was published');
    const versionPath = await publishDraft(visitor, draftPath);
    const version = await visitor.get(`${versionPath}?done=published`);
    expect(version.status).toBe(200);
    expect(version.text).toContain('Published: this version is immutable');
    const terms = panel(version, 'terms');
    expect(terms).toContain(`<dt>Name</dt><dd>${name}</dd>`);
    expect(terms).toContain('<dt>License</dt><dd>MIT</dd>');
    expect(terms).toContain('<code>Bash(git:*) Read</code>');
    expect(terms).toContain('Shown as written; grants nothing.');
    expect(panel(version, 'files')).toContain('<code>SKILL.md</code>');
    expect(panel(version, 'skill-md')).toContain('Skill text is untrusted');
    expect(panel(version, 'skill-md')).toContain('<pre>\n---\nname: ');

    // The download link is the owner API's, authenticated by the session cookie.
    const versionId = versionPath.split('/').at(-1) as string;
    const href = `/v1/skills/versions/${versionId}/download?context=%7B%22scope%22%3A%22OWN%22%7D`;
    expect(terms).toContain(`href="${href}"`);
    const zip = await visitor.get(href);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-type')).toBe('application/zip');
    expect(terms).toContain(`<code>${zip.headers.get('x-content-sha256')}</code>`);

    // An invalid draft is not published: the refusal names the problems' fix.
    const bad = await startDraft(visitor, uniqueSkillName('invalid'));
    const refusedPublish = await visitor.submit(bad, `${bad}/publish`, { revision: '1' });
    expect(refusedPublish.status).toBe(422);
    expect(shownError(refusedPublish)).toContain('Fix the problems listed under Validation');
  });

  it('escapes hostile skill text on the draft and version pages', async () => {
    const { visitor, email } = await signedIn();
    const agent = await newMember(server, email);
    try {
      const hostile = '</pre></textarea><script>alert("skill")</script><img src=x onerror=alert(1)>';
      const v = await publishSkill(agent, { body: `# Steps\n\n${hostile}\n` });
      const page = await visitor.get(`/console/skills/versions/${v.versionId}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('<script>');
      expect(page.text).not.toContain('<img');
      expect(panel(page, 'skill-md')).toContain(
        '&lt;/pre&gt;&lt;/textarea&gt;&lt;script&gt;alert(&quot;skill&quot;)&lt;/script&gt;',
      );

      const draftPath = await startDraft(visitor, uniqueSkillName('hostile'), 'Hostile text inside.');
      const typed = `---\nname: x\n---\n${hostile}`;
      await visitor.submit(draftPath, `${draftPath}/skill-md`, { revision: '1', content: typed });
      const draft = await visitor.get(draftPath);
      expect(draft.text).not.toContain('<script>');
      expect(draft.text).not.toContain('<img');
      expect(panel(draft, 'skill-md')).toContain('&lt;/textarea&gt;&lt;script&gt;');
    } finally {
      await agent.client.close();
    }
  });
});

describe('a version’s page for its owner', () => {
  it('another owner’s draft and version are not found, and every form needs the CSRF token', async () => {
    const a = await signedIn();
    const b = await signedIn();
    const draftPath = await startDraft(a.visitor, uniqueSkillName('mine'), 'Only mine.');
    const versionPath = await publishDraft(a.visitor, draftPath);

    expect((await b.visitor.get(draftPath)).status).toBe(404);
    expect((await b.visitor.get(versionPath)).status).toBe(404);
    const bToken = await b.visitor.get('/console/skills');
    expect(bToken.status).toBe(200);
    const stolenGrant = await b.visitor.submit('/console/skills', `${versionPath}/grants`, {
      grantee_id: 'agt_0000000000000000000000000',
    });
    expect(stolenGrant.status).toBe(404);
    const stolenEdit = await b.visitor.submit('/console/skills', `${draftPath}/skill-md`, {
      revision: '1',
      content: 'stolen',
    });
    expect(stolenEdit.status).toBe(404);
    const stolenBlock = await b.visitor.submit('/console/skills', `${versionPath}/block`, {
      reason: 'mine now',
    });
    expect(stolenBlock.status).toBe(404);
    expect(panel(await a.visitor.get(versionPath), 'block')).toContain('AVAILABLE');

    const forms: Array<[string, Record<string, string>]> = [
      [`${draftPath}/skill-md`, { revision: '1', content: 'forged' }],
      [`${draftPath}/publish`, { revision: '1' }],
      [`${versionPath}/grants`, { grantee_id: 'agt_0000000000000000000000000' }],
      [`${versionPath}/block`, { reason: 'forged' }],
      [`${versionPath}/unblock`, {}],
      [`${versionPath}/archive`, {}],
      [`${versionPath}/unarchive`, {}],
      [`${versionPath}/delete-bytes`, { confirm: 'yes' }],
      [`${versionPath}/grants/sgr_0000000000000000000000000/revoke`, {}],
    ];
    for (const [action, fields] of forms) {
      const forged = await a.visitor.post(action, fields);
      expect(forged.status, action).toBe(403);
      expect(forged.text).toContain('did not carry a valid security token');
    }
    const still = await a.visitor.get(versionPath);
    expect(panel(still, 'block')).toContain('AVAILABLE');
    expect(panel(still, 'lifecycle')).toContain('ACTIVE');
    expect(panel(still, 'delete-bytes')).toContain('Delete bytes');
  });

  it('a grant through the form lets another owner’s agent read the version; revoking stops it at once', async () => {
    const { visitor, email } = await signedIn();
    const author = await newMember(server, email);
    const grantee: Member = await newMember(server);
    try {
      const v = await publishSkill(author);
      const path = `/console/skills/versions/${v.versionId}`;
      const get = { version_id: v.versionId, context: OWN };
      expect((await refused(grantee, 'skill_get', get, false)).code).toBe('SKILL_CONTEXT_DENIED');

      const granted = await visitor.submit(path, `${path}/grants`, {
        grantee_id: grantee.agentId,
        note: 'For the atlas work.',
      });
      expect([granted.status, granted.location]).toEqual([303, `${path}?done=granted`]);
      const page = await visitor.get(granted.location ?? '');
      expect(page.text).toContain('Granted: the identity reads this version');
      const grants = panel(page, 'grants');
      expect(grants).toContain(`<code>${grantee.agentId}</code>`);
      expect(grants).toContain('For the atlas work.');
      expect(grants).toContain('>Revoke</button>');
      const seen = await ok(grantee, 'skill_get', get, false);
      expect([seen.version_id, seen.access]).toEqual([v.versionId, 'GRANT']);
      await ok(grantee, 'skill_file_get', readArgs(v.versionId), false);

      // Granting again answers the grant that stands.
      const again = await visitor.submit(path, `${path}/grants`, { grantee_id: grantee.agentId });
      expect(again.location).toBe(`${path}?done=regranted`);

      const grantId = grantIdOf(page);
      const revoked = await visitor.submit(path, `${path}/grants/${grantId}/revoke`, {});
      expect([revoked.status, revoked.location]).toEqual([303, `${path}?done=revoked`]);
      const after = await visitor.get(revoked.location ?? '');
      expect(after.text).toContain('Revoked: the identity’s next read of this version is refused.');
      expect(panel(after, 'grants')).toContain('REVOKED');
      expect(panel(after, 'grants')).not.toContain('>Revoke</button>');
      expect((await refused(grantee, 'skill_get', get, false)).code).toBe('SKILL_CONTEXT_DENIED');
      expect((await refused(grantee, 'skill_file_get', readArgs(v.versionId), false)).code).toBe(
        'SKILL_CONTEXT_DENIED',
      );

      // What the form cannot take, or the service refuses, is shown on the page.
      const notAnId = await visitor.submit(path, `${path}/grants`, { grantee_id: 'someone' });
      expect(notAnId.status).toBe(422);
      expect(shownError(notAnId)).toContain('starts with agt_');
      const nobody = await visitor.submit(path, `${path}/grants`, {
        grantee_id: 'agt_0000000000000000000000000',
      });
      expect(nobody.status).toBe(404);
      expect(shownError(nobody)).toContain('No identity agt_0000000000000000000000000 to grant to.');
      expect(nobody.text).toContain('<section class="panel" id="grants">');
    } finally {
      await author.client.close();
      await grantee.client.close();
    }
  });

  it('block, unblock, archive, unarchive and byte deletion through the forms take effect for the grantee', async () => {
    const { visitor, email } = await signedIn();
    const author = await newMember(server, email);
    const grantee = await newMember(server);
    const later = await newMember(server);
    try {
      const v = await publishSkill(author);
      const path = `/console/skills/versions/${v.versionId}`;
      await visitor.submit(path, `${path}/grants`, { grantee_id: grantee.agentId });
      await ok(grantee, 'skill_file_get', readArgs(v.versionId), false);

      const noReason = await visitor.submit(path, `${path}/block`, { reason: ' ' });
      expect(noReason.status).toBe(422);
      expect(shownError(noReason)).toContain('Enter a reason for the block.');

      const blocked = await visitor.submit(path, `${path}/block`, { reason: 'Wrong page numbers.' });
      expect([blocked.status, blocked.location]).toEqual([303, `${path}?done=blocked`]);
      const blockedPage = await visitor.get(path);
      expect(panel(blockedPage, 'block')).toContain('BLOCKED');
      expect(panel(blockedPage, 'block')).toContain('Reason: Wrong page numbers.');
      expect(panel(blockedPage, 'block')).toContain('>Unblock</button>');
      expect((await refused(grantee, 'skill_file_get', readArgs(v.versionId), false)).code).toBe(
        'SKILL_BLOCKED',
      );
      const meta = await ok(grantee, 'skill_get', { version_id: v.versionId, context: OWN }, false);
      expect(meta.status).toBe('BLOCKED');
      // The owner still reads it on the page.
      expect(panel(blockedPage, 'skill-md')).toContain('Quote each source exactly');

      const unblocked = await visitor.submit(path, `${path}/unblock`, {});
      expect(unblocked.location).toBe(`${path}?done=unblocked`);
      await ok(grantee, 'skill_file_get', readArgs(v.versionId), false);

      const archived = await visitor.submit(path, `${path}/archive`, { reason: 'Superseded.' });
      expect(archived.location).toBe(`${path}?done=archived`);
      const archivedPage = await visitor.get(path);
      expect(panel(archivedPage, 'lifecycle')).toContain('ARCHIVED');
      expect(panel(archivedPage, 'lifecycle')).toContain('>Unarchive</button>');
      // Still delivered where it is; not newly granted.
      await ok(grantee, 'skill_file_get', readArgs(v.versionId), false);
      const refusedGrant = await visitor.submit(path, `${path}/grants`, { grantee_id: later.agentId });
      expect(refusedGrant.status).toBe(409);
      expect(shownError(refusedGrant)).toContain('Unarchive the skill first');
      const unarchived = await visitor.submit(path, `${path}/unarchive`, {});
      expect(unarchived.location).toBe(`${path}?done=unarchived`);
      expect(panel(await visitor.get(path), 'lifecycle')).toContain('ACTIVE');

      const unconfirmed = await visitor.submit(path, `${path}/delete-bytes`, { reason: 'Privacy.' });
      expect(unconfirmed.status).toBe(422);
      expect(shownError(unconfirmed)).toContain('Tick the box');
      await ok(grantee, 'skill_file_get', readArgs(v.versionId), false);
      const deleted = await visitor.submit(path, `${path}/delete-bytes`, {
        confirm: 'yes',
        reason: 'Privacy.',
      });
      expect(deleted.location).toBe(`${path}?done=deleted`);
      const deletedPage = await visitor.get(deleted.location ?? '');
      expect(deletedPage.text).toContain('were deleted for good');
      expect(deletedPage.text).toContain('BYTES DELETED');
      expect(deletedPage.text).not.toContain('id="download"');
      expect(panel(deletedPage, 'skill-md')).not.toContain('<pre>');
      expect(panel(deletedPage, 'files')).toContain('<code>SKILL.md</code>');
      expect((await refused(grantee, 'skill_file_get', readArgs(v.versionId), false)).code).toBe(
        'SKILL_BYTES_DELETED',
      );
      expect(panel(deletedPage, 'activity')).toContain('BYTES_DELETED');
    } finally {
      await author.client.close();
      await grantee.client.close();
      await later.client.close();
    }
  });
});

describe('a deployment with skills off', () => {
  it('says so plainly on the list and offers nothing else', async () => {
    const off = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true', CAIRN_SKILLS: 'off' } });
    try {
      const { visitor } = await signedIn(off);
      const page = await visitor.get('/console/skills');
      expect(page.status).toBe(200);
      expect(page.text).toContain('Skills are turned off on this deployment (CAIRN_SKILLS=off).');
      expect(page.text).not.toContain('action="/console/skills/drafts"');
      expect(page.text).not.toContain('<table');
      const made = await visitor.submit('/console/skills', '/console/skills/drafts', {
        name: uniqueSkillName('off'),
      });
      expect(made.status).toBe(403);
      expect(made.text).toContain('CAIRN_SKILLS=off');
    } finally {
      await off.close();
    }
  });
});
