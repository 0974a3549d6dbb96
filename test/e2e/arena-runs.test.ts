import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { compactVerify, createLocalJWKSet } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { type ArenaMember, arenaMember, assign, start, startedRun } from '../support/arena.ts';
import { key, newMember, ok, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 items 3-5 and 7: the whole loop of every built-in challenge through the real tools (a
 * scripted agent solves it for the full score; a wrong answer scores less), assignment expiry on
 * the fake clock, one run at a time, list_changed on assignment, and signed scores verified with
 * jose against the published JWKS.
 */

const clock = new FakeClock(new Date());
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

async function jwks() {
  const res = await fetch(`${server.url}/.well-known/jwks.json`);
  return createLocalJWKSet((await res.json()) as never);
}

/** The payload of a signed score, after jose checked its signature against the published keys. */
async function checkedPayload(jws: string) {
  const { payload, protectedHeader } = await compactVerify(jws, await jwks());
  expect(protectedHeader).toMatchObject({ alg: 'EdDSA', typ: 'cairn-score+jws' });
  return JSON.parse(new TextDecoder().decode(payload));
}

/** The sentence of a source starting with `startsWith`, as lab.fetch serves it. */
async function sentence(m: ArenaMember, runId: string, sourceId: string, startsWith: string) {
  const source = await ok(m, 'lab.fetch', { run_id: runId, source_id: sourceId, max_chars: 100_000 }, false);
  expect(source.label).toBe('SIMULATED');
  const text: string = source.text;
  const at = text.indexOf(startsWith);
  expect(at).toBeGreaterThanOrEqual(0);
  return text.slice(at, text.indexOf('.', at) + 1);
}

describe('the whole loop of each built-in challenge', () => {
  it('cite-quotation: the verbatim sentence scores 100 and verifies with jose; a paraphrase scores less', async () => {
    const m = await arenaMember(server);
    const { runId, started } = await startedRun(server, m, 'cite-quotation');
    expect(started.challenge.simulated_sources.every((s: { label: string }) => s.label === 'SIMULATED')).toBe(
      true,
    );
    const found = await ok(
      m,
      'lab.search',
      { run_id: runId, query: 'grey-crested tern first recorded' },
      false,
    );
    expect(found.results.map((r: { source_id: string }) => r.source_id)).toContain('fenmark-atlas');
    const table = await ok(m, 'lab.table', { run_id: runId, source_id: 'colony-counts' }, false);
    expect(table.columns).toEqual(['site', 'year', 'pairs']);
    // Every success names the next move.
    expect(table.next).toContain('artifact_submit');
    expect((await ok(m, 'workspace.list', { run_id: runId }, false)).next).toContain('workspace.read');
    const quote = await sentence(m, runId, 'fenmark-atlas', 'The grey-crested tern was first recorded');
    await ok(
      m,
      'workspace.write',
      {
        run_id: runId,
        path: 'citation.json',
        content: JSON.stringify({ quote, source_id: 'fenmark-atlas' }),
      },
      true,
    );
    const handed = await ok(m, 'artifact_submit', {
      run_id: runId,
      name: 'citation.json',
      path: 'citation.json',
    });
    expect(handed.state).toBe('SUBMITTED');
    const verified = await ok(m, 'result_verify', { run_id: runId });
    expect(verified).toMatchObject({
      state: 'VERIFIED',
      score: 100,
      max_score: 100,
      world: { destroyed: true },
    });
    const payload = await checkedPayload(verified.signed_score);
    expect(payload).toMatchObject({
      run_id: runId,
      challenge_id: 'cite-quotation',
      challenge_version: 1,
      score: 100,
      agent_id: null,
    });
    expect(payload.artifacts).toEqual([{ name: 'citation.json', sha256: handed.sha256 }]);
    // One byte of the payload changed: the signature no longer verifies.
    const [h, p, s] = verified.signed_score.split('.');
    const tampered = Buffer.from(p, 'base64url').toString('utf8').replace('"score":100', '"score":101');
    await expect(
      compactVerify(`${h}.${Buffer.from(tampered).toString('base64url')}.${s}`, await jwks()),
    ).rejects.toThrow();

    const again = await startedRun(server, m, 'cite-quotation');
    await ok(m, 'artifact_submit', {
      run_id: again.runId,
      name: 'citation.json',
      content: JSON.stringify({
        quote: 'Grey-crested terns first bred on Holm Skerry in 1962.',
        source_id: 'fenmark-atlas',
      }),
    });
    const lower = await ok(m, 'result_verify', { run_id: again.runId });
    expect(lower.score).toBeLessThan(lower.max_score);
    expect(lower.score).toBe(40);
  });

  it('reconcile-sources: 1871 with both sources weighed scores fully; the guidebook year less', async () => {
    const m = await arenaMember(server);
    const finding = {
      claim: 'The Carrow Point lighthouse was first lit in 1871.',
      value: '1871',
      evidence:
        'src-a (the parish register) records 1871; src-b gives 1874, which src-c shows is when the lens was replaced.',
    };
    const right = await startedRun(server, m, 'reconcile-sources');
    for (const id of ['src-a', 'src-b', 'src-c'])
      await ok(m, 'lab.fetch', { run_id: right.runId, source_id: id }, false);
    await ok(m, 'artifact_submit', {
      run_id: right.runId,
      name: 'finding.json',
      content: JSON.stringify(finding),
    });
    expect((await ok(m, 'result_verify', { run_id: right.runId })).score).toBe(100);
    const wrong = await startedRun(server, m, 'reconcile-sources');
    await ok(m, 'artifact_submit', {
      run_id: wrong.runId,
      name: 'finding.json',
      content: JSON.stringify({ ...finding, value: '1874', evidence: 'The guidebook src-b says so.' }),
    });
    expect((await ok(m, 'result_verify', { run_id: wrong.runId })).score).toBe(0);
  });

  it('fix-failing-program: fixed code passes under sandbox.exec and scores fully; editing the tests scores less', async () => {
    const m = await arenaMember(server);
    const { runId } = await startedRun(server, m, 'fix-failing-program');
    const calc = await ok(m, 'workspace.read', { run_id: runId, path: 'src/calc.js' }, false);
    const failing = await ok(m, 'sandbox.exec', { run_id: runId, command: 'test/run.js' }, true);
    expect(failing.exit_code).not.toBe(0);
    const fixed = calc.content.replace('(values.length - 1)', 'values.length');
    await ok(m, 'workspace.write', { run_id: runId, path: 'src/calc.js', content: fixed }, true);
    const passing = await ok(m, 'sandbox.exec', { run_id: runId, command: 'test/run.js' }, true);
    expect(passing).toMatchObject({ exit_code: 0 });
    expect(passing.stdout).toContain('all tests passed');
    const diff = await ok(m, 'workspace.diff', { run_id: runId }, false);
    expect(diff.files).toEqual([{ path: 'src/calc.js', change: 'MODIFIED' }]);
    expect(diff.diff).toContain('+');
    const verified = await ok(m, 'result_verify', { run_id: runId });
    expect(verified).toMatchObject({ score: 100, max_score: 100 });
    expect(verified.world.files_deleted).toBeGreaterThan(0);
    expect((await refused(m, 'workspace.list', { run_id: runId }, false)).code).toBe('ARENA_RUN_ENDED');

    const cheat = await startedRun(server, m, 'fix-failing-program');
    await ok(m, 'workspace.delete', { run_id: cheat.runId, path: 'test/calc.test.js' }, true);
    await ok(m, 'workspace.write', { run_id: cheat.runId, path: 'test/calc.test.js', content: '' }, true);
    const cheated = await ok(m, 'result_verify', { run_id: cheat.runId });
    expect(cheated.score).toBeLessThan(cheated.max_score);
  });

  it('a retried sandbox.exec or workspace write with the same idempotency_key does its work once', async () => {
    const m = await arenaMember(server);
    const { runId } = await startedRun(server, m, 'fix-failing-program');
    // A program that appends a line each time it runs: a second run would show two lines.
    const program =
      "const f = 'count.txt'; let t = ''; try { t = sandbox.readFile(f); } catch {} sandbox.writeFile(f, t + 'ran\\n');";
    await ok(m, 'workspace.write', { run_id: runId, path: 'count.js', content: program }, true);
    const once = { run_id: runId, command: 'count.js', idempotency_key: key() };
    const first = await callTool(m.client, 'sandbox.exec', once);
    expect(first.body.exit_code, JSON.stringify(first.body)).toBe(0);
    const again = await callTool(m.client, 'sandbox.exec', once);
    expect(again.body).toEqual(first.body);
    const counted = await ok(m, 'workspace.read', { run_id: runId, path: 'count.txt' }, false);
    expect(counted.content).toBe('ran\n');
    const reused = await callTool(m.client, 'sandbox.exec', { ...once, args: ['other'] });
    expect(reused.body.error.code).toBe('IDEMPOTENCY_KEY_REUSED');

    const write = { run_id: runId, path: 'count.txt', content: 'reset\n', idempotency_key: key() };
    expect((await callTool(m.client, 'workspace.write', write)).isError).toBe(false);
    await ok(m, 'sandbox.exec', { run_id: runId, command: 'count.js' }, true);
    // The repeat of the earlier write answers as before and does not overwrite the later run's line.
    expect((await callTool(m.client, 'workspace.write', write)).isError).toBe(false);
    const after = await ok(m, 'workspace.read', { run_id: runId, path: 'count.txt' }, false);
    expect(after.content).toBe('reset\nran\n');
    const missing = await callTool(m.client, 'workspace.delete', { run_id: runId, path: 'count.txt' });
    expect(missing.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('pdf-table-to-json: all five rows score fully; a misread number costs its share', async () => {
    const m = await arenaMember(server);
    const rows = [
      { reservoir: 'Eskholme', capacity_ml: 15900, level_pct: 72 },
      { reservoir: 'Ashby Fell', capacity_ml: 12400, level_pct: 87.5 },
      { reservoir: 'Brackenmoor', capacity_ml: 8350, level_pct: 64 },
      { reservoir: 'Cold Harbour', capacity_ml: 21075, level_pct: 91.25 },
      { reservoir: 'Dunmere', capacity_ml: 4600, level_pct: 58.5 },
    ];
    const right = await startedRun(server, m, 'pdf-table-to-json');
    const page = await ok(m, 'lab.fetch', { run_id: right.runId, source_id: 'wendmoor-report-p4' }, false);
    expect(page.kind).toBe('PDF_TEXT');
    await ok(m, 'artifact_submit', {
      run_id: right.runId,
      name: 'table.json',
      content: JSON.stringify(rows),
    });
    expect((await ok(m, 'result_verify', { run_id: right.runId })).score).toBe(100);
    const wrong = await startedRun(server, m, 'pdf-table-to-json');
    const misread = rows.map((r) => (r.reservoir === 'Dunmere' ? { ...r, capacity_ml: 4.6 } : r));
    await ok(m, 'artifact_submit', {
      run_id: wrong.runId,
      name: 'table.json',
      content: JSON.stringify(misread),
    });
    expect((await ok(m, 'result_verify', { run_id: wrong.runId })).score).toBe(80);
  });

  it('team-handoff: A hands the code to B over the thread, B submits: full score for the team', async () => {
    const a = await arenaMember(server);
    const b = await arenaMember(server, a.ownerEmail);
    const assigned = await assign(server, a, 'team-handoff', { teammates: [b.agentId] });
    expect(assigned.assignments.map((x) => x.role)).toEqual(['A', 'B']);
    const startedA = await start(a);
    // B has not started yet: the run's deadline now bounds its start.
    const waiting = (await ok(b, 'capabilities_describe', {}, false)).arena_assignment;
    expect(waiting).toMatchObject({ role: 'B', state: 'ASSIGNED', expires_at: startedA.deadline });
    const startedB = await start(b);
    expect(startedB.run_id).toBe(startedA.run_id);
    expect(startedB.role).toBe('B');
    const runId = startedA.run_id;
    const log = await ok(a, 'lab.fetch', { run_id: runId, source_id: 'kestrel-sensor-log' }, false);
    expect(log.text).toContain('KV-4471');
    await ok(a, 'message_append', {
      run_id: runId,
      type: 'HANDOFF',
      to_role: 'B',
      content: 'Station 7 calibration code: KV-4471',
    });
    const thread = await ok(b, 'workspace.thread', { run_id: runId }, false);
    expect(thread.messages).toMatchObject([
      { type: 'HANDOFF', from_role: 'A', to_role: 'B', untrusted: true },
    ]);
    await ok(b, 'artifact_submit', {
      run_id: runId,
      name: 'answer.json',
      content: JSON.stringify({ station: 7, code: 'KV-4471' }),
    });
    const verified = await ok(b, 'result_verify', { run_id: runId });
    expect(verified.score).toBe(100);
    // The run is over for both members.
    expect((await refused(a, 'workspace.list', { run_id: runId }, false)).code).toBe('ARENA_RUN_ENDED');
    // SOLO runs have no thread; campaign message_append still needs its campaign.
    const solo = await startedRun(server, a, 'cite-quotation');
    expect((await refused(a, 'workspace.thread', { run_id: solo.runId }, false)).code).toBe(
      'ARENA_TOOL_NOT_ALLOWED',
    );
  });
});

describe('assignments and runs', () => {
  it('shows no Arena tool until the owner turns the Arena on', async () => {
    const m = await newMember(server);
    const names = (await m.client.listTools()).tools.map((t) => t.name);
    expect(names).not.toContain('arena_start');
    expect(names).not.toContain('sandbox.exec');
    const caps = await ok(m, 'capabilities_describe', {}, false);
    expect(caps.arena_assignment).toBeNull();
    const on = await arenaMember(server);
    const visible = (await on.client.listTools()).tools.map((t) => t.name);
    for (const tool of [
      'arena_start',
      'artifact_submit',
      'lab.search',
      'workspace.read',
      'workspace.write',
      'sandbox.exec',
    ]) {
      expect(visible).toContain(tool);
    }
    const exec = (await on.client.listTools()).tools.find((t) => t.name === 'sandbox.exec');
    expect(exec?.annotations?.readOnlyHint).toBe(false);
  });

  it('sends list_changed on assignment; capabilities_describe gives the exact arena_start arguments', async () => {
    const m = await arenaMember(server);
    const heard = new Promise<string>((resolve) => {
      m.client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
    });
    await new Promise((r) => setTimeout(r, 200));
    const assigned = await assign(server, m, 'cite-quotation');
    expect(
      await Promise.race([
        heard,
        new Promise((_, no) => setTimeout(() => no(new Error('no list_changed')), 5_000)),
      ]),
    ).toBe('notifications/tools/list_changed');
    const caps = await ok(m, 'capabilities_describe', {}, false);
    expect(caps.arena_assignment).toMatchObject({
      assignment_id: assigned.assignments[0]?.assignment_id,
      challenge_id: 'cite-quotation',
      version: 1,
      expires_at: assigned.expires_at,
      arena_start: {
        arguments: {
          assignment_id: assigned.assignments[0]?.assignment_id,
          challenge_id: 'cite-quotation',
          version: 1,
        },
      },
    });
  });

  it('refuses a second run and a second assignment while one is current, naming the current one', async () => {
    const m = await arenaMember(server);
    const assigned = await assign(server, m, 'cite-quotation');
    const twice = await ownerApi(server, m.ownerToken, 'POST', '/v1/arena/assignments', {
      agent_id: m.agentId,
      challenge_id: 'reconcile-sources',
    });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toMatchObject({
      code: 'ARENA_ASSIGNMENT_CURRENT',
      details: { run_id: assigned.run_id },
    });
    const caps = await ok(m, 'capabilities_describe', {}, false);
    const args = caps.arena_assignment.arena_start.arguments;
    const first = await ok(m, 'arena_start', args);
    const second = await refused(m, 'arena_start', args);
    expect(second.code).toBe('ARENA_RUN_ACTIVE');
    expect(second.details.run_id).toBe(first.run_id);
    // The same idempotency_key replays the first answer rather than refusing.
    const k = key();
    const replayA = await callTool(m.client, 'arena_start', { ...args, idempotency_key: k });
    const replayB = await callTool(m.client, 'arena_start', { ...args, idempotency_key: k });
    expect(replayB.body).toEqual(replayA.body);
    const running = await ok(m, 'capabilities_describe', {}, false);
    expect(running.arena_assignment).toMatchObject({ run_id: first.run_id, state: 'RUNNING' });
    expect(running.arena_assignment.arena_start).toBeUndefined();
  });

  it('expires an unstarted assignment after one hour (fake clock); a new one can then be made', async () => {
    const m = await arenaMember(server);
    const assigned = await assign(server, m, 'cite-quotation');
    const args = (await ok(m, 'capabilities_describe', {}, false)).arena_assignment.arena_start.arguments;
    clock.advance(60 * 60 * 1000 + 1_000);
    expect((await ok(m, 'capabilities_describe', {}, false)).arena_assignment).toBeNull();
    const late = await refused(m, 'arena_start', args);
    expect(late.code).toBe('ARENA_ASSIGNMENT_EXPIRED');
    const fresh = await assign(server, m, 'cite-quotation');
    expect(fresh.run_id).not.toBe(assigned.run_id);
  });

  it('ends a started run at its deadline: tools refuse with ARENA_RUN_ENDED (EXPIRED)', async () => {
    const m = await arenaMember(server);
    const { runId } = await startedRun(server, m, 'cite-quotation');
    clock.advance(21 * 60 * 1000);
    const ended = await refused(m, 'workspace.list', { run_id: runId }, false);
    expect(ended).toMatchObject({ code: 'ARENA_RUN_ENDED', details: { state: 'EXPIRED' } });
    expect((await refused(m, 'result_verify', { run_id: runId })).code).toBe('ARENA_RUN_ENDED');
    // The owner can assign again at once: the stale run is expired on the way.
    await assign(server, m, 'cite-quotation');
  });

  it('publishes the workspace and sandbox caps in /v1/public/limits, and enforces the file cap', async () => {
    const limits = (await (await fetch(`${server.url}/v1/public/limits`)).json()) as {
      limits: Array<{ area: string; values?: Record<string, number> }>;
    };
    const workspace = limits.limits.find((l) => l.area === 'Arena workspace');
    expect(workspace?.values).toMatchObject({
      file_bytes: 1024 * 1024,
      files: 500,
      run_bytes: 4 * 1024 * 1024,
    });
    expect(limits.limits.find((l) => l.area === 'Arena sandbox.exec')?.values?.max_timeout_ms).toBe(30_000);
    const m = await arenaMember(server);
    const { runId } = await startedRun(server, m, 'fix-failing-program');
    // Past the run's 4 MiB (each file within the sandbox's own caps): nothing is written back.
    const program =
      "for (let i = 0; i < 5; i++) sandbox.writeFile('big' + i + '.txt', 'x'.repeat(900 * 1024));";
    await ok(m, 'workspace.write', { run_id: runId, path: 'fill.js', content: program }, true);
    const over = await refused(m, 'sandbox.exec', { run_id: runId, command: 'fill.js' }, true);
    expect(over).toMatchObject({ code: 'WORKSPACE_LIMIT', details: { cap: 4 * 1024 * 1024 } });
    const files = (await ok(m, 'workspace.list', { run_id: runId }, false)).files;
    expect(files.some((f: { path: string }) => f.path.startsWith('big'))).toBe(false);
  });

  it('refuses tools the challenge does not allow, and another identity’s run like a missing one', async () => {
    const m = await arenaMember(server);
    const { runId } = await startedRun(server, m, 'cite-quotation');
    const exec = await refused(m, 'sandbox.exec', { run_id: runId, command: 'README.md' }, true);
    expect(exec.code).toBe('ARENA_TOOL_NOT_ALLOWED');
    expect(exec.details.allowed_tools).toContain('lab.search');
    const other = await arenaMember(server);
    const theirs = await refused(other, 'workspace.read', { run_id: runId, path: 'README.md' }, false);
    const none = await refused(
      other,
      'workspace.read',
      { run_id: 'arun_01ARZ3NDEKTSV4RRFFQ69G5FAV', path: 'README.md' },
      false,
    );
    expect(theirs.code).toBe('NOT_FOUND');
    expect(theirs.message).toBe(none.message);
  });

  it('lists published results with their signatures, the identity only where the owner allows it', async () => {
    const shown = await arenaMember(server);
    const r1 = await startedRun(server, shown, 'reconcile-sources', { show_agent: true });
    await ok(shown, 'artifact_submit', { run_id: r1.runId, name: 'finding.json', content: '{}' });
    const v1 = await ok(shown, 'result_verify', { run_id: r1.runId });
    expect((await checkedPayload(v1.signed_score)).agent_id).toBe(shown.agentId);
    const hidden = await arenaMember(server);
    const r2 = await startedRun(server, hidden, 'reconcile-sources', { publish: false });
    await ok(hidden, 'result_verify', { run_id: r2.runId });
    const res = await fetch(`${server.url}/v1/public/arena/results?challenge_id=reconcile-sources&limit=100`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      results: Array<{ run_id: string; agent_id: string | null; signed_score: string }>;
    };
    const mine = body.results.find((r) => r.run_id === r1.runId);
    expect(mine).toMatchObject({ agent_id: shown.agentId, signed_score: v1.signed_score });
    expect(body.results.some((r) => r.run_id === r2.runId)).toBe(false);
    expect(body.results.every((r) => r.agent_id === null || typeof r.agent_id === 'string')).toBe(true);
  });
});
