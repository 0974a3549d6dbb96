import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember, assign, start } from '../support/arena.ts';
import { newMember, ok, refused } from '../support/campaigns.ts';
import { csrfOf, errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 22, superchallenges (docs/arena.md, "Superchallenges"): an identity with the Arena on
 * composes built-ins into a SEQUENCE or a TEAM_SPLIT; the package is validated like an operator's
 * and waits for a reviewer; nobody can be assigned it before approval; only reviewers decide
 * (not the proposer's own owner, never an agent); once approved it is listed, assigned, run and
 * verified for full marks under the prefixed names; a rejected one stays unassignable.
 */

const PASSWORD = 'correct horse battery staple';
const PAGE = '/console/arena/superchallenges';
let server: TestServer;
let proposer: ArenaMember;
let reviewer: string;
let outsider: string;

let n = 0;
/** A challenge id no other test (or earlier run on the shared PG database) has taken. */
const freshId = (stem: string) => `${stem}-${Date.now().toString(36)}-${++n}`;

async function reviewerToken(): Promise<string> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  await server.app.services.identity.setArenaReviewer(email, true);
  return (await server.app.services.identity.addOwnerToken(email, 'tests', 1)).token;
}

beforeAll(async () => {
  server = await startTestServer();
  proposer = await arenaMember(server);
  reviewer = await reviewerToken();
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  outsider = (await server.app.services.identity.addOwnerToken(email, 'tests', 1)).token;
});
afterAll(async () => {
  await server?.close();
});

const propose = (m: ArenaMember, args: Record<string, unknown>) => ok(m, 'superchallenge_create', args);
const decide = (
  token: string,
  id: string,
  outcome: 'APPROVED' | 'REJECTED',
  reasons = 'Checked the parts.',
) => ownerApi(server, token, 'POST', `/v1/arena/superchallenges/${id}/decision`, { outcome, reasons });
const assignAs = (m: ArenaMember, challengeId: string) =>
  ownerApi(server, m.ownerToken, 'POST', '/v1/arena/assignments', {
    agent_id: m.agentId,
    challenge_id: challengeId,
  });
const listed = async (m: ArenaMember) =>
  (
    (await ownerApi(server, m.ownerToken, 'GET', '/v1/arena/challenges')).body.challenges as Array<{
      challenge_id: string;
      max_score: number;
    }>
  ).map((c) => c.challenge_id);

/** One proposal in the reviewers' queue, walking its pages (the PG test database is shared). */
async function queued(token: string, id: string) {
  let cursor: string | null = null;
  do {
    const q = `/v1/arena/superchallenges?status=PENDING&limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await ownerApi(server, token, 'GET', q);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const found = res.body.superchallenges.find(
      (s: { superchallenge_id: string }) => s.superchallenge_id === id,
    );
    if (found) return found;
    cursor = res.body.next_cursor;
  } while (cursor);
  return undefined;
}

/** The sentence of a source starting with `startsWith`, as lab.fetch serves it. */
async function sentence(m: ArenaMember, runId: string, sourceId: string, startsWith: string) {
  const source = await ok(m, 'lab.fetch', { run_id: runId, source_id: sourceId, max_chars: 100_000 }, false);
  const text: string = source.text;
  const at = text.indexOf(startsWith);
  expect(at).toBeGreaterThanOrEqual(0);
  return text.slice(at, text.indexOf('.', at) + 1);
}

describe('superchallenge_create', () => {
  it('is offered only to an identity with the Arena on', async () => {
    const off = await newMember(server);
    expect((await off.client.listTools()).tools.map((t) => t.name)).not.toContain('superchallenge_create');
    expect((await proposer.client.listTools()).tools.map((t) => t.name)).toContain('superchallenge_create');
  });

  it('composes a SEQUENCE of two built-ins, held PENDING and unassignable until a reviewer approves; then it runs for full marks', async () => {
    const id = freshId('coast-sequence');
    const made = await propose(proposer, {
      challenge_id: id,
      title: 'Coast sequence',
      statement: 'Two coastal exercises in a row.',
      composition: 'SEQUENCE',
      parts: [{ challenge_id: 'cite-quotation' }, { challenge_id: 'reconcile-sources', version: 1 }],
    });
    expect(made).toMatchObject({
      status: 'PENDING',
      challenge_id: id,
      version: 1,
      mode: 'SOLO',
      time_limit_minutes: 40,
      max_score: 200,
      parts: [
        { challenge_id: 'cite-quotation', version: 1 },
        { challenge_id: 'reconcile-sources', version: 1 },
      ],
      decision: null,
    });
    expect(made.superchallenge_id).toMatch(/^sch_/);
    expect(made.package_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(made.next).toContain('reviewer must approve');
    expect(made.rubric.map((l: { id: string }) => l.id)).toEqual([
      'p1-verbatim-quote',
      'p1-right-source',
      'p2-right-year',
      'p2-both-sources-weighed',
    ]);
    expect(made.files).toContain('sources/part-2/src-a.txt');

    // Before approval: not listed, and assigning it answers like an unknown challenge.
    expect(await listed(proposer)).not.toContain(id);
    const early = await assignAs(proposer, id);
    expect(early.status).toBe(404);
    expect(early.body.error.code).toBe('NOT_FOUND');

    // Only reviewers read the queue or decide; an agent's token is no owner credential.
    const notReviewer = await decide(outsider, made.superchallenge_id, 'APPROVED');
    expect(notReviewer.status).toBe(403);
    expect(notReviewer.body.error.code).toBe('ARENA_NOT_REVIEWER');
    expect((await ownerApi(server, outsider, 'GET', '/v1/arena/superchallenges')).body.error.code).toBe(
      'ARENA_NOT_REVIEWER',
    );
    expect((await decide(proposer.key, made.superchallenge_id, 'APPROVED')).status).toBe(401);
    expect(await listed(proposer)).not.toContain(id);

    const inQueue = await queued(reviewer, made.superchallenge_id);
    expect(inQueue).toMatchObject({
      status: 'PENDING',
      proposer_agent_id: proposer.agentId,
      you_may_decide: true,
    });
    expect(inQueue.statement).toContain('## Part 2: Reconcile two contradicting sources');

    const approved = await decide(reviewer, made.superchallenge_id, 'APPROVED', 'Both parts are sound.');
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    expect(approved.body).toMatchObject({ status: 'APPROVED', decision: { outcome: 'APPROVED' } });
    const again = await decide(reviewer, made.superchallenge_id, 'REJECTED');
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');

    // The proposer learns the decision.
    const mine = await ok(proposer, 'superchallenge_create', { action: 'LIST' });
    expect(
      mine.superchallenges.find(
        (s: { superchallenge_id: string }) => s.superchallenge_id === made.superchallenge_id,
      ),
    ).toMatchObject({
      status: 'APPROVED',
      title: 'Coast sequence',
      decision: { reasons: 'Both parts are sound.' },
    });

    // Listed, assignable, and a run of it scores full marks under the prefixed names.
    expect(await listed(proposer)).toContain(id);
    await assign(server, proposer, id);
    const started = await start(proposer);
    const runId: string = started.run_id;
    expect(started.challenge.statement).toContain('`citation.json` as `p1-citation.json`');
    const quote = await sentence(
      proposer,
      runId,
      'p1-fenmark-atlas',
      'The grey-crested tern was first recorded',
    );
    await ok(proposer, 'artifact_submit', {
      run_id: runId,
      name: 'p1-citation.json',
      content: JSON.stringify({ quote, source_id: 'p1-fenmark-atlas' }),
    });
    await ok(proposer, 'artifact_submit', {
      run_id: runId,
      name: 'p2-finding.json',
      content: JSON.stringify({
        claim: 'The Carrow Point lighthouse was first lit in 1871.',
        value: '1871',
        evidence: 'p2-src-a records 1871; p2-src-b gives 1874, the year the lens was replaced (p2-src-c).',
      }),
    });
    const verified = await ok(proposer, 'result_verify', { run_id: runId });
    expect(verified).toMatchObject({ state: 'VERIFIED', score: 200, max_score: 200 });
  });

  it('composes a TEAM_SPLIT: role A fixes the program under part-1/, role B reads the table; the team scores fully', async () => {
    const id = freshId('team-split');
    const made = await propose(proposer, {
      challenge_id: id,
      title: 'Program and table',
      composition: 'TEAM_SPLIT',
      parts: [{ challenge_id: 'fix-failing-program' }, { challenge_id: 'pdf-table-to-json' }],
    });
    expect(made).toMatchObject({ status: 'PENDING', mode: 'TEAM', team_size: 2, time_limit_minutes: 50 });
    expect(made.allowed_tools).toEqual(
      expect.arrayContaining(['message_append', 'sandbox.exec', 'lab.fetch']),
    );
    expect((await decide(reviewer, made.superchallenge_id, 'APPROVED')).status).toBe(200);

    const a = await arenaMember(server);
    const b = await arenaMember(server, a.ownerEmail);
    await assign(server, a, id, { teammates: [b.agentId] });
    const startedA = await start(a);
    expect(startedA.challenge.statement).toContain('Role A works part 1; Role B works part 2');
    await start(b);
    const runId: string = startedA.run_id;
    const calc = await ok(a, 'workspace.read', { run_id: runId, path: 'part-1/src/calc.js' }, false);
    await ok(
      a,
      'workspace.write',
      {
        run_id: runId,
        path: 'part-1/src/calc.js',
        content: calc.content.replace('(values.length - 1)', 'values.length'),
      },
      true,
    );
    await ok(a, 'message_append', { run_id: runId, type: 'NOTE', to_role: 'B', content: 'Part 1 fixed.' });
    await ok(b, 'artifact_submit', {
      run_id: runId,
      name: 'p2-table.json',
      content: JSON.stringify([
        { reservoir: 'Eskholme', capacity_ml: 15900, level_pct: 72 },
        { reservoir: 'Ashby Fell', capacity_ml: 12400, level_pct: 87.5 },
        { reservoir: 'Brackenmoor', capacity_ml: 8350, level_pct: 64 },
        { reservoir: 'Cold Harbour', capacity_ml: 21075, level_pct: 91.25 },
        { reservoir: 'Dunmere', capacity_ml: 4600, level_pct: 58.5 },
      ]),
    });
    const verified = await ok(b, 'result_verify', { run_id: runId });
    expect(verified.rubric.map((l: { id: string; points: number }) => [l.id, l.points])).toEqual([
      ['p1-tests-pass', 70],
      ['p1-tests-untouched', 30],
      ['p2-table-rows', 100],
    ]);
    expect(verified).toMatchObject({ score: 200, max_score: 200 });
  });

  it('refuses a bad composition with every problem named, and a taken challenge_id as CONFLICT', async () => {
    const bad = await refused(proposer, 'superchallenge_create', {
      challenge_id: freshId('bad'),
      title: 'Bad',
      composition: 'SEQUENCE',
      parts: [
        { challenge_id: 'no-such-exercise' },
        { challenge_id: 'team-handoff' },
        { challenge_id: 'cite-quotation', version: 9 },
      ],
    });
    expect(bad.code).toBe('VALIDATION_FAILED');
    expect(bad.details.problems).toEqual([
      expect.objectContaining({ path: 'parts[0]', rule: 'UNKNOWN_PART' }),
      expect.objectContaining({ path: 'parts[1]', rule: 'TEAM_PART' }),
      expect.objectContaining({ path: 'parts[2]', rule: 'UNKNOWN_PART' }),
    ]);
    // Each action takes its own arguments only.
    const missing = await refused(proposer, 'superchallenge_create', { title: 'Only a title' });
    expect(missing.details.problems).toEqual(
      ['challenge_id', 'composition', 'parts'].map((path) =>
        expect.objectContaining({ path, rule: 'REQUIRED' }),
      ),
    );
    const mixed = await refused(proposer, 'superchallenge_create', { action: 'LIST', time_limit_minutes: 5 });
    expect(mixed.details.problems).toEqual([
      expect.objectContaining({ path: 'time_limit_minutes', rule: 'LIST_ONLY' }),
    ]);
    const parts = [{ challenge_id: 'cite-quotation' }, { challenge_id: 'pdf-table-to-json' }];
    const builtIn = await refused(proposer, 'superchallenge_create', {
      challenge_id: 'cite-quotation',
      title: 'Clash',
      composition: 'SEQUENCE',
      parts,
    });
    expect(builtIn).toMatchObject({
      code: 'CONFLICT',
      details: { challenge_id: 'cite-quotation', taken_by: 'BUILT_IN' },
    });
    // Another identity's pending proposal holds its id too, without saying whose it is.
    const other = await arenaMember(server);
    const id = freshId('held');
    const held = await propose(other, { challenge_id: id, title: 'Held', composition: 'SEQUENCE', parts });
    const clash = await refused(proposer, 'superchallenge_create', {
      challenge_id: id,
      title: 'Clash',
      composition: 'SEQUENCE',
      parts,
    });
    expect(clash).toMatchObject({ code: 'CONFLICT', details: { taken_by: 'SUPERCHALLENGE' } });
    expect(clash.details.superchallenge_id).toBeUndefined();
    expect(clash.message).toContain(id);
    const own = await refused(other, 'superchallenge_create', {
      challenge_id: id,
      title: 'Again',
      composition: 'SEQUENCE',
      parts,
    });
    expect(own.details.superchallenge_id).toBe(held.superchallenge_id);
    expect((await decide(reviewer, held.superchallenge_id, 'REJECTED')).status).toBe(200);
  });

  it('keeps a rejected superchallenge unassignable, its id taken, and tells the proposer why', async () => {
    const id = freshId('rejected');
    const made = await propose(proposer, {
      challenge_id: id,
      title: 'To reject',
      composition: 'SEQUENCE',
      parts: [{ challenge_id: 'reconcile-sources' }, { challenge_id: 'pdf-table-to-json' }],
      time_limit_minutes: 25,
    });
    expect(made.time_limit_minutes).toBe(25);
    const rejected = await decide(
      reviewer,
      made.superchallenge_id,
      'REJECTED',
      'The parts do not build on each other.',
    );
    expect(rejected.body).toMatchObject({ status: 'REJECTED' });
    expect((await assignAs(proposer, id)).status).toBe(404);
    expect(await listed(proposer)).not.toContain(id);
    const mine = await ok(proposer, 'superchallenge_create', { action: 'LIST', limit: 50 });
    expect(mine.superchallenges.find((s: { challenge_id: string }) => s.challenge_id === id)).toMatchObject({
      status: 'REJECTED',
      decision: { outcome: 'REJECTED', reasons: 'The parts do not build on each other.' },
    });
    const again = await refused(proposer, 'superchallenge_create', {
      challenge_id: id,
      title: 'Again',
      composition: 'SEQUENCE',
      parts: [{ challenge_id: 'reconcile-sources' }, { challenge_id: 'pdf-table-to-json' }],
    });
    expect(again.code).toBe('CONFLICT');
  });

  it('holds at most five pending proposals per identity, and leaves a reviewer’s own identity’s proposal to another reviewer', async () => {
    const m = await arenaMember(server);
    const parts = [{ challenge_id: 'cite-quotation' }, { challenge_id: 'reconcile-sources' }];
    // biome-ignore lint/suspicious/noExplicitAny: tool answers are JSON
    const made: any[] = [];
    for (let i = 0; i < 5; i++) {
      made.push(
        await propose(m, {
          challenge_id: freshId('many'),
          title: `Many ${i}`,
          composition: 'SEQUENCE',
          parts,
        }),
      );
    }
    const sixth = await refused(m, 'superchallenge_create', {
      challenge_id: freshId('many'),
      title: 'One too many',
      composition: 'SEQUENCE',
      parts,
    });
    expect(sixth).toMatchObject({ code: 'SUPERCHALLENGE_PENDING_LIMIT', details: { limit: 5, pending: 5 } });
    expect(sixth.message).toContain('at most 5');

    // The proposer's owner is a reviewer too: not for its own identity's proposal.
    await server.app.services.identity.setArenaReviewer(m.ownerEmail, true);
    const self = await decide(m.ownerToken, made[0].superchallenge_id, 'APPROVED');
    expect(self.status).toBe(403);
    expect(self.body.error.code).toBe('SUPERCHALLENGE_OWN_PROPOSAL');
    expect(await queued(m.ownerToken, made[0].superchallenge_id)).toMatchObject({ you_may_decide: false });

    // Once one is decided, there is room for another.
    expect((await decide(reviewer, made[0].superchallenge_id, 'REJECTED')).status).toBe(200);
    const room = await propose(m, {
      challenge_id: freshId('many'),
      title: 'Room again',
      composition: 'SEQUENCE',
      parts,
    });
    // Leave no pending proposal behind in the shared queue.
    for (const p of [...made.slice(1), room])
      expect((await decide(reviewer, p.superchallenge_id, 'REJECTED')).status).toBe(200);
  });
});

describe('console: superchallenges for reviewers', () => {
  async function visitor(isReviewer: boolean): Promise<Visitor> {
    const email = uniqueEmail();
    await server.app.services.identity.addOwner(email, PASSWORD);
    if (isReviewer) await server.app.services.identity.setArenaReviewer(email, true);
    const v = new Visitor(server.url);
    expect((await v.signIn(email, PASSWORD)).status).toBe(303);
    return v;
  }
  const panel = (page: Page, id: string) =>
    new RegExp(`<section class="panel" id="superchallenge-${id}">([\\s\\S]*?)</section>`).exec(
      page.text,
    )?.[1] ?? '';
  const action = (id: string) => `${PAGE}/${id}/decision`;

  it('lists a pending proposal with its form, decides it, and shows non-reviewers a 403 page', async () => {
    const made = await propose(proposer, {
      challenge_id: freshId('console'),
      title: 'Console <pair>',
      composition: 'SEQUENCE',
      parts: [{ challenge_id: 'cite-quotation' }, { challenge_id: 'pdf-table-to-json' }],
    });
    const id: string = made.superchallenge_id;

    const stranger = await visitor(false);
    const denied = await stranger.get(PAGE);
    expect(denied.status).toBe(403);
    expect(denied.text).not.toContain(id);
    const post = await stranger.post(action(id), {
      csrf: csrfOf(denied.text),
      outcome: 'APPROVED',
      reasons: 'x',
    });
    expect(post.status).toBe(403);

    const r = await visitor(true);
    let page = await r.get(PAGE);
    expect(page.status).toBe(200);
    // Pending proposals come first, oldest first: follow "More" to this one (shared PG database).
    for (
      let more = /href="([^"]*cursor=[^"]*)">More/.exec(page.text);
      !panel(page, id) && more;
      more = /href="([^"]*cursor=[^"]*)">More/.exec(page.text)
    ) {
      page = await r.get((more[1] as string).replace(/&amp;/g, '&'));
    }
    const shown = panel(page, id);
    expect(shown).toContain('Console &lt;pair&gt;');
    expect(shown).toContain('p2-table-rows');
    expect(shown).toContain(`action="${action(id)}"`);
    expect(shown).toMatch(/name="outcome"[\s\S]*value="APPROVED"[\s\S]*value="REJECTED"/);

    const empty = await r.submit(PAGE, action(id), { outcome: 'APPROVED', reasons: ' ' });
    expect(empty.status).toBe(422);
    expect(errorOf(empty.text)).toContain('reasons');
    const done = await r.submit(PAGE, action(id), { outcome: 'APPROVED', reasons: 'Fine.' });
    expect(done.status).toBe(303);
    expect(done.location).toBe(`${PAGE}?done=approved`);
    const after = await r.get(done.location as string);
    expect(after.text).toContain('Approved. It is an assignable challenge version now');
    expect(panel(after, id)).not.toContain('<form');
    expect(await listed(proposer)).toContain(made.challenge_id);
  });
});
