import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember, startedRun } from '../support/arena.ts';
import { ok } from '../support/campaigns.ts';
import { csrfOf, errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * The Arena reviewers' page in the console (docs/arena.md, "Reports and appeals"): reviewer A
 * decides a report with the form; the filer reads the decision and appeals; A's page shows the
 * appeal without a form and reviewer B decides it; an owner who is not a reviewer gets 403.
 */

const PASSWORD = 'correct horse battery staple';
const PAGE = '/console/arena/cases';

let server: TestServer;
let filer: ArenaMember;
let runId: string;

beforeAll(async () => {
  server = await startTestServer();
  filer = await arenaMember(server);
  ({ runId } = await startedRun(server, filer, 'cite-quotation'));
});
afterAll(async () => {
  await server?.close();
});

async function owner(reviewer: boolean): Promise<Visitor> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  if (reviewer) await server.app.services.identity.setArenaReviewer(email, true);
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email, PASSWORD)).status).toBe(303);
  return visitor;
}

/** The panel of one case on the page ('' when the case is not listed). */
function panel(page: Page, caseId: string): string {
  const m = new RegExp(`<section class="panel" id="case-${caseId}">([\\s\\S]*?)</section>`).exec(page.text);
  return m?.[1] ?? '';
}

/**
 * The panel of one case, following "More cases" from the given page: other files share the
 * database on PostgreSQL and leave open cases older than this file's, so the first page may not
 * reach it ('' when no page lists the case).
 */
async function panelIn(visitor: Visitor, first: Page, caseId: string): Promise<string> {
  let page = first;
  for (let i = 0; i < 50; i++) {
    const found = panel(page, caseId);
    if (found) return found;
    const more = /href="(\/console\/arena\/cases\?after=[^"]+)"/.exec(page.text)?.[1];
    if (!more) return '';
    page = await visitor.get(more);
  }
  throw new Error('more than 50 pages of open cases');
}

const action = (caseId: string) => `${PAGE}/${caseId}/decision`;

describe('console: Arena cases for reviewers', () => {
  it('lists open cases, decides them with the form, and leaves an appeal to another reviewer', async () => {
    const a = await owner(true);
    const b = await owner(true);
    const filed = await ok(filer, 'arena_report', {
      run_id: runId,
      subject_type: 'RUN',
      statement: 'The lab <answered> slowly.',
    });

    const listed = await a.get(PAGE);
    expect(listed.status).toBe(200);
    expect(listed.headers.get('content-security-policy')).toContain("default-src 'self'");
    const report = await panelIn(a, listed, filed.case_id);
    expect(report).toContain('RUN');
    expect(report).toContain(runId);
    expect(report).toContain('cite-quotation');
    expect(report).toContain(filer.agentId);
    expect(report).toContain('The lab &lt;answered&gt; slowly.');
    expect(report).not.toContain('<answered>');
    expect(report).toContain(`action="${action(filed.case_id)}"`);
    expect(report).toContain('name="csrf"');
    expect(report).toMatch(/<select[^>]*name="outcome"[\s\S]*value="UPHELD"[\s\S]*value="DISMISSED"/);
    expect(report).toContain('name="reasons"');

    // Without the CSRF token nothing is decided.
    const forged = await a.post(action(filed.case_id), { outcome: 'DISMISSED', reasons: 'x' });
    expect(forged.status).toBe(403);
    // Without reasons, the page again with the message.
    const empty = await a.submit(PAGE, action(filed.case_id), { outcome: 'DISMISSED', reasons: '  ' });
    expect(empty.status).toBe(422);
    expect(errorOf(empty.text)).toContain('reasons');

    const decided = await a.submit(PAGE, action(filed.case_id), {
      outcome: 'DISMISSED',
      reasons: 'The lab answered within its limits.',
    });
    expect(decided.status).toBe(303);
    expect(decided.location).toBe(`${PAGE}?done=decided`);
    const after = await a.get(decided.location!);
    expect(after.text).toContain('Decided. The filer reads the outcome');
    expect(await panelIn(a, after, filed.case_id)).toBe('');

    const seen = (await ok(filer, 'arena_reports', {}, false)).cases.find(
      (c: { case_id: string }) => c.case_id === filed.case_id,
    );
    expect(seen).toMatchObject({
      status: 'RESOLVED',
      decision: { outcome: 'DISMISSED', reasons: 'The lab answered within its limits.' },
    });

    // Deciding it again (an old page) is refused on the page.
    const twice = await a.post(action(filed.case_id), {
      csrf: csrfOf(after.text),
      outcome: 'UPHELD',
      reasons: 'again',
    });
    expect(twice.status).toBe(409);
    expect(errorOf(twice.text)).toContain('already decided');

    const appeal = await ok(filer, 'arena_appeal', {
      decision_id: filed.case_id,
      statement: 'It timed out twice.',
    });
    const aPage = await a.get(PAGE);
    const aView = await panelIn(a, aPage, appeal.case_id);
    expect(aView).toContain('It timed out twice.');
    expect(aView).toContain(`the decision <code>${filed.case_id}</code>`);
    expect(aView).toContain('another reviewer decides this');
    expect(aView).not.toContain('<form');
    // A posts anyway: ARENA_SAME_REVIEWER, said on the page.
    const same = await a.post(action(appeal.case_id), {
      csrf: csrfOf(aPage.text),
      outcome: 'UPHELD',
      reasons: 'My own call.',
    });
    expect(same.status).toBe(403);
    expect(errorOf(same.text)).toContain('another reviewer decides the appeal');

    const bView = await panelIn(b, await b.get(PAGE), appeal.case_id);
    expect(bView).toContain(`action="${action(appeal.case_id)}"`);
    expect(bView).not.toContain('another reviewer decides this');
    const upheld = await b.submit(PAGE, action(appeal.case_id), {
      outcome: 'UPHELD',
      reasons: 'Two timeouts on record.',
    });
    expect(upheld.status).toBe(303);
    const appealSeen = (await ok(filer, 'arena_reports', {}, false)).cases.find(
      (c: { case_id: string }) => c.case_id === appeal.case_id,
    );
    expect(appealSeen).toMatchObject({
      status: 'RESOLVED',
      decision: { outcome: 'UPHELD', reasons: 'Two timeouts on record.' },
    });
    expect(await panelIn(b, await b.get(PAGE), appeal.case_id)).toBe('');
  });

  it('tells an owner who is not a reviewer that only reviewers see the page (403)', async () => {
    const filed = await ok(filer, 'arena_report', {
      run_id: runId,
      subject_type: 'RUN',
      statement: 'Private.',
    });
    const visitor = await owner(false);
    const page = await visitor.get(PAGE);
    expect(page.status).toBe(403);
    expect(page.text).toContain('Only Arena reviewers see this page');
    expect(page.text).not.toContain(filed.case_id);
    expect(page.text).not.toContain('Private.');
    const post = await visitor.post(action(filed.case_id), {
      csrf: csrfOf(page.text),
      outcome: 'UPHELD',
      reasons: 'Not mine to decide.',
    });
    expect(post.status).toBe(403);
    expect(post.text).toContain('Only Arena reviewers see this page');
    const still = (await ok(filer, 'arena_reports', {}, false)).cases.find(
      (c: { case_id: string }) => c.case_id === filed.case_id,
    );
    expect(still.status).toBe('OPEN');
  });

  it('sends a visitor without a session to sign in', async () => {
    const page = await new Visitor(server.url).get(PAGE);
    expect(page.status).toBe(303);
    expect(page.location).toContain('/console/signin');
  });
});
