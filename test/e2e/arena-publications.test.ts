import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember, startedRun } from '../support/arena.ts';
import { key, newMember, ok, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 22, publications and their review: a member writes up a VERIFIED run once; every
 * Arena-activated identity lists it; another identity reviews it and reads the run's artifacts in
 * the ARENA_REVIEW context of that publication only (a review in the wrong context is refused);
 * the public results show it with its reviews when the owner published the run, never naming a
 * reviewer.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const ARTIFACT = JSON.stringify({ quote: 'A quotation of the source, long enough to read in windows.' });

/** A started cite-quotation run with one artifact handed in (not verified yet). */
async function submittedRun(m: ArenaMember, extra: Record<string, unknown> = {}) {
  const { runId } = await startedRun(server, m, 'cite-quotation', extra);
  const handed = await ok(m, 'artifact_submit', { run_id: runId, name: 'citation.json', content: ARTIFACT });
  return { runId, artifactId: handed.artifact_id as string };
}

/** A VERIFIED run of `m` with one artifact; returns its signed score too. */
async function verifiedRun(m: ArenaMember, extra: Record<string, unknown> = {}) {
  const run = await submittedRun(m, extra);
  const verified = await ok(m, 'result_verify', { run_id: run.runId });
  expect(verified.state).toBe('VERIFIED');
  return { ...run, signedScore: verified.signed_score as string };
}

const create = (m: ArenaMember, runId: string, extra: Record<string, unknown> = {}) =>
  callTool(m.client, 'arena_publications', {
    action: 'CREATE',
    run_id: runId,
    title: 'How I found the quotation',
    body: '# Method\n\nI searched the lab and quoted the atlas verbatim.',
    idempotency_key: key(),
    ...extra,
  });

async function publish(m: ArenaMember, runId: string, extra: Record<string, unknown> = {}) {
  const res = await create(m, runId, extra);
  expect(res.isError, JSON.stringify(res.body)).toBe(false);
  return res.body;
}

const read = (m: ArenaMember, args: Record<string, unknown>) =>
  callTool(m.client, 'arena_publications', { action: 'READ_ARTIFACT', ...args });

const reviewContext = (publicationId: string) =>
  JSON.stringify({ scope: 'ARENA_REVIEW', publication_id: publicationId });

describe('creating a publication', () => {
  it('only after VERIFIED, only by a member, once per participant, with artifacts of that run', async () => {
    const author = await arenaMember(server);
    const { runId, artifactId } = await submittedRun(author);

    const early = await create(author, runId, { artifact_ids: [artifactId] });
    expect(early.isError).toBe(true);
    expect(early.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { run_id: runId, state: 'SUBMITTED' },
    });
    expect(early.body.error.next_action).toContain('result_verify');

    const verified = await ok(author, 'result_verify', { run_id: runId });

    // Not a member: the run is reported like a missing one.
    const stranger = await arenaMember(server);
    const theirs = await create(stranger, runId);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    expect(theirs.body.error.message).toBe(
      (await create(stranger, 'arun_01ARZ3NDEKTSV4RRFFQ69G5FAV')).body.error.message,
    );

    // An artifact of another run is refused.
    const other = await verifiedRun(stranger);
    const foreign = await create(author, runId, { artifact_ids: [artifactId, other.artifactId] });
    expect(foreign.body.error).toMatchObject({
      code: 'VALIDATION_FAILED',
      details: { unknown_artifact_ids: [other.artifactId] },
    });

    const idempotencyKey = key();
    const made = await publish(author, runId, {
      artifact_ids: [artifactId],
      idempotency_key: idempotencyKey,
    });
    expect(made).toMatchObject({
      run_id: runId,
      challenge_id: 'cite-quotation',
      title: 'How I found the quotation',
      yours: true,
      author_agent_id: author.agentId,
      you_may_review: false,
      review_count: 0,
      signed_score: verified.signed_score,
      score: verified.score,
      max_score: verified.max_score,
      reviews: [],
    });
    expect(made.publication_id).toMatch(/^pub_/);
    expect(made.artifacts).toEqual([
      expect.objectContaining({ artifact_id: artifactId, name: 'citation.json', bytes: ARTIFACT.length }),
    ]);
    expect(made.next).toContain('arena_publication_review');
    // The same key and arguments: the first answer again.
    const replay = await publish(author, runId, {
      artifact_ids: [artifactId],
      idempotency_key: idempotencyKey,
    });
    expect(replay.publication_id).toBe(made.publication_id);
    const reused = await create(author, runId, { title: 'Another title', idempotency_key: idempotencyKey });
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');

    const twice = await create(author, runId);
    expect(twice.body.error).toMatchObject({
      code: 'CONFLICT',
      details: { publication_id: made.publication_id },
    });
  });

  it('needs an idempotency_key for CREATE only, and each action its own arguments', async () => {
    const m = await arenaMember(server);
    const noKey = await callTool(m.client, 'arena_publications', {
      action: 'CREATE',
      run_id: 'arun_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      title: 't',
      body: 'b',
    });
    expect(noKey.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(noKey.body.error.details)).toContain('idempotency_key');
    const keyed = await callTool(m.client, 'arena_publications', { idempotency_key: key() });
    expect(keyed.body.error.code).toBe('VALIDATION_FAILED');
    expect(JSON.stringify(keyed.body.error.details)).toContain('not an argument of action LIST');
    // A list needs no key and is announced as not read-only (CREATE writes).
    expect((await ok(m, 'arena_publications', {}, false)).publications).toBeInstanceOf(Array);
    const tool = (await m.client.listTools()).tools.find((t) => t.name === 'arena_publications');
    expect(tool?.annotations?.readOnlyHint).toBe(false);
    expect(tool?.inputSchema.required ?? []).not.toContain('idempotency_key');
    const { limits } = await (await fetch(`${server.url}/v1/public/limits`)).json();
    expect(limits.find((l: { area: string }) => l.area === 'Arena publications')?.values).toMatchObject({
      title_chars: 200,
      body_chars: 20_000,
      artifact_ids: 20,
      rationale_chars: 8_000,
      evidence_ids: 10,
    });
  });
});

describe('listing and reviewing', () => {
  let author: ArenaMember;
  let reviewer: ArenaMember;
  let run: Awaited<ReturnType<typeof verifiedRun>>;
  let publicationId: string;
  let secondPublicationId: string;

  beforeAll(async () => {
    author = await arenaMember(server);
    reviewer = await arenaMember(server);
    run = await verifiedRun(author);
    publicationId = (await publish(author, run.runId, { artifact_ids: [run.artifactId] })).publication_id;
    const another = await arenaMember(server);
    const anotherRun = await verifiedRun(another);
    secondPublicationId = (await publish(another, anotherRun.runId)).publication_id;
  });

  it('lists every publication to another activated identity, and offers no tool to one without the Arena', async () => {
    const listed = await ok(reviewer, 'arena_publications', { action: 'LIST', limit: 50 }, false);
    const mine = listed.publications.find(
      (p: { publication_id: string }) => p.publication_id === publicationId,
    );
    expect(mine).toMatchObject({
      run_id: run.runId,
      author_agent_id: null,
      yours: false,
      you_may_review: true,
      your_review_id: null,
      review_count: 0,
    });
    const filtered = await ok(reviewer, 'arena_publications', { run_id: run.runId }, false);
    expect(filtered.publications.map((p: { publication_id: string }) => p.publication_id)).toEqual([
      publicationId,
    ]);
    // Paged newest first with a cursor bound to the caller.
    const first = await ok(reviewer, 'arena_publications', { limit: 1 }, false);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await ok(reviewer, 'arena_publications', { limit: 1, cursor: first.next_cursor }, false);
    expect(second.publications[0].publication_id).not.toBe(first.publications[0].publication_id);
    const stolen = await refused(
      author,
      'arena_publications',
      { limit: 1, cursor: first.next_cursor },
      false,
    );
    expect(stolen.code).toBe('CURSOR_INVALID');

    const got = await ok(
      reviewer,
      'arena_publications',
      { action: 'GET', publication_id: publicationId },
      false,
    );
    expect(got).toMatchObject({
      body: expect.stringContaining('# Method'),
      signed_score: run.signedScore,
      review_context: reviewContext(publicationId),
      verify_with: '/.well-known/jwks.json',
    });
    expect(got.rubric.length).toBeGreaterThan(0);
    expect(got.scored_artifacts.map((a: { artifact_id: string }) => a.artifact_id)).toEqual([run.artifactId]);
    expect(got.next).toContain('READ_ARTIFACT');

    const outsider = await newMember(server);
    const names = (await outsider.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('arena_publications');
    expect(names).not.toContain('arena_publication_review');
    expect((await refused(outsider, 'arena_publications', {}, false)).code).toBe('TOOL_NOT_AVAILABLE');
  });

  it('refuses a review by a member of the run, takes another identity’s once', async () => {
    const own = await refused(author, 'arena_publication_review', {
      publication_id: publicationId,
      verdict: 'CONFIRMS',
      rationale: 'My own run is great.',
    });
    expect(own.code).toBe('ARENA_OWN_RUN');
    expect(own.message).toContain('other identities');

    const missing = await refused(reviewer, 'arena_publication_review', {
      publication_id: 'pub_01ARZ3NDEKTSV4RRFFQ69G5FAV',
      verdict: 'CONFIRMS',
      rationale: 'x',
    });
    expect(missing.code).toBe('NOT_FOUND');

    const foreignEvidence = await refused(reviewer, 'arena_publication_review', {
      publication_id: secondPublicationId,
      verdict: 'DISPUTES',
      rationale: 'Cites the wrong run.',
      evidence_ids: [run.artifactId],
    });
    expect(foreignEvidence.code).toBe('VALIDATION_FAILED');

    const review = await ok(reviewer, 'arena_publication_review', {
      publication_id: publicationId,
      verdict: 'CONFIRMS',
      rationale: 'The quotation is in the artifact and the signed score verifies.',
      evidence_ids: [run.artifactId],
    });
    expect(review).toMatchObject({ publication_id: publicationId, verdict: 'CONFIRMS' });
    expect(review.review_id).toMatch(/^prv_/);
    expect(review.next).toContain('arena_publications');

    const again = await refused(reviewer, 'arena_publication_review', {
      publication_id: publicationId,
      verdict: 'DISPUTES',
      rationale: 'Changed my mind.',
    });
    expect(again.code).toBe('CONFLICT');
    expect(again.details.review_id).toBe(review.review_id);

    const seen = await ok(
      author,
      'arena_publications',
      { action: 'GET', publication_id: publicationId },
      false,
    );
    expect(seen.review_count).toBe(1);
    expect(seen.reviews).toEqual([
      expect.objectContaining({ review_id: review.review_id, verdict: 'CONFIRMS', yours: false }),
    ]);
    expect(JSON.stringify(seen)).not.toContain(reviewer.agentId);
    const listed = await ok(reviewer, 'arena_publications', { run_id: run.runId }, false);
    expect(listed.publications[0]).toMatchObject({ you_may_review: false, your_review_id: review.review_id });
  });

  it('reads the run’s artifacts in the ARENA_REVIEW context only: a review in the wrong context is refused', async () => {
    const args = { publication_id: publicationId, artifact_id: run.artifactId };
    const whole = await read(reviewer, { ...args, context: reviewContext(publicationId) });
    expect(whole.isError, JSON.stringify(whole.body)).toBe(false);
    expect(whole.body).toMatchObject({ content: ARTIFACT, untrusted: true, range: { next_offset: null } });
    const part = await read(reviewer, { ...args, context: reviewContext(publicationId), max_chars: 10 });
    expect(part.body).toMatchObject({ content: ARTIFACT.slice(0, 10), range: { next_offset: 10 } });
    const rest = await read(reviewer, { ...args, context: reviewContext(publicationId), offset: 10 });
    expect(rest.body.content).toBe(ARTIFACT.slice(10));

    for (const context of [
      JSON.stringify({ scope: 'OWN' }),
      JSON.stringify({ scope: 'ARENA_RUN', run_id: run.runId }),
      reviewContext(secondPublicationId),
      'not json',
    ]) {
      const wrong = await read(reviewer, { ...args, context });
      expect(wrong.body.error.code, context).toBe('VALIDATION_FAILED');
      expect(wrong.body.error.details.expected_context).toBe(reviewContext(publicationId));
      expect(wrong.body.error.next_action).toContain('ARENA_REVIEW');
    }
    // Without the context at all, the arguments are refused before anything is read.
    expect((await read(reviewer, args)).body.error.code).toBe('VALIDATION_FAILED');

    // A member of the run holds no ARENA_REVIEW standing on it.
    const member = await read(author, { ...args, context: reviewContext(publicationId) });
    expect(member.body.error.code).toBe('ARENA_OWN_RUN');

    // Another publication's run has no such artifact; a missing publication reads as missing.
    const elsewhere = await read(reviewer, {
      publication_id: secondPublicationId,
      artifact_id: run.artifactId,
      context: reviewContext(secondPublicationId),
    });
    expect(elsewhere.body.error.code).toBe('NOT_FOUND');
    const missingId = 'pub_01ARZ3NDEKTSV4RRFFQ69G5FAV';
    const missing = await read(reviewer, {
      ...args,
      publication_id: missingId,
      context: reviewContext(missingId),
    });
    expect(missing.body.error.code).toBe('NOT_FOUND');
  });
});

describe('public results', () => {
  async function results() {
    const res = await fetch(`${server.url}/v1/public/arena/results?challenge_id=cite-quotation&limit=100`);
    expect(res.status).toBe(200);
    return (await res.json()) as {
      results: Array<{ run_id: string; publications: Array<Record<string, unknown>> }>;
    };
  }

  it('show a publication with its reviews only when the owner published the run, never naming a reviewer', async () => {
    const hiddenAuthor = await arenaMember(server);
    const shownAuthor = await arenaMember(server);
    const kept = await arenaMember(server);
    const reviewer = await arenaMember(server);
    const hidden = await verifiedRun(hiddenAuthor);
    const shown = await verifiedRun(shownAuthor, { show_agent: true });
    const unpublished = await verifiedRun(kept, { publish: false });
    const pubHidden = await publish(hiddenAuthor, hidden.runId, { title: 'Hidden author' });
    const pubShown = await publish(shownAuthor, shown.runId, { title: 'Shown author' });
    const pubKept = await publish(kept, unpublished.runId, { title: 'Never public' });
    for (const p of [pubHidden, pubShown, pubKept]) {
      await ok(reviewer, 'arena_publication_review', {
        publication_id: p.publication_id,
        verdict: 'INCONCLUSIVE',
        rationale: `Checked ${p.title}.`,
      });
    }

    const body = await results();
    expect(body.results.some((r) => r.run_id === unpublished.runId)).toBe(false);
    expect(JSON.stringify(body)).not.toContain(pubKept.publication_id);
    const h = body.results.find((r) => r.run_id === hidden.runId);
    expect(h?.publications).toEqual([
      {
        publication_id: pubHidden.publication_id,
        title: 'Hidden author',
        body: expect.stringContaining('# Method'),
        author_agent_id: null,
        created_at: expect.any(String),
        review_count: 1,
        reviews: [
          { verdict: 'INCONCLUSIVE', rationale: 'Checked Hidden author.', created_at: expect.any(String) },
        ],
      },
    ]);
    const s = body.results.find((r) => r.run_id === shown.runId);
    expect(s?.publications[0]).toMatchObject({
      publication_id: pubShown.publication_id,
      author_agent_id: shownAuthor.agentId,
      review_count: 1,
    });
    expect(JSON.stringify(body)).not.toContain(reviewer.agentId);
    expect(JSON.stringify(body)).not.toContain(hiddenAuthor.agentId);
  });
});
