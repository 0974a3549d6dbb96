import { spawn } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ArenaMember, arenaMember, startedRun } from '../support/arena.ts';
import { key, ok, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 6: the Arena's workspace and sandbox under attack, through the real MCP tools.
 * Every attack is refused or contained, and the run still answers afterwards (a workspace.list
 * and a normal sandbox.exec). Then a storm of parallel runs on the default pool (2 threads, 8
 * waiting): the excess is DEGRADED_MODE, never INTERNAL, and /health keeps answering.
 */

let server: TestServer;
let a: ArenaMember;
let runA: string;
let b: ArenaMember;
let runB: string;

/** A run id of the right form that names no run. */
const MADE_UP_RUN = 'arun_01ZZZZZZZZZZZZZZZZZZZZZZZZ';
const ALIVE = 'probe/alive.js';

beforeAll(async () => {
  // The default sandbox pool (CAIRN_SANDBOX_JOBS 2, CAIRN_SANDBOX_QUEUE 8); only the public rate
  // limit is raised, so the /health probes of the storm are never the ones turned away.
  server = await startTestServer({ env: { CAIRN_PUBLIC_RATE_LIMIT: '100000' } });
  a = await arenaMember(server);
  runA = (await startedRun(server, a, 'fix-failing-program')).runId;
  b = await arenaMember(server);
  runB = (await startedRun(server, b, 'fix-failing-program')).runId;
  for (const [m, run] of [
    [a, runA],
    [b, runB],
  ] as const) {
    await write(m, run, ALIVE, "console.log('alive');");
  }
});
afterAll(async () => {
  await server?.close();
});

async function write(m: ArenaMember, runId: string, path: string, content: string) {
  return ok(m, 'workspace.write', { run_id: runId, path, content }, true);
}

/** Writes `source` as a program of the run and runs it; answers sandbox.exec's result. */
/**
 * A memory bomb is given the longest time limit: the server's sandbox threads run at a lower
 * priority, so on a loaded machine a bomb that fills 64 MiB in half a second alone could reach
 * the default 5 s limit first, and the run would say TIME, which is not what these tests ask.
 */
const ROOM_TO_FILL = { timeout_ms: 30_000 };

async function runProgram(
  m: ArenaMember,
  runId: string,
  name: string,
  source: string,
  extra: Record<string, unknown> = {},
) {
  const path = `attack/${name}.js`;
  await write(m, runId, path, source);
  return ok(m, 'sandbox.exec', { run_id: runId, command: path, ...extra }, true);
}

/** The run still answers: its workspace lists and a plain program runs to exit 0. */
async function stillAnswers(m: ArenaMember, runId: string): Promise<string[]> {
  const list = await ok(m, 'workspace.list', { run_id: runId }, false);
  const paths = (list.files as Array<{ path: string }>).map((f) => f.path);
  expect(paths).toContain('src/calc.js');
  const alive = await ok(m, 'sandbox.exec', { run_id: runId, command: ALIVE }, true);
  expect(alive, JSON.stringify(alive)).toMatchObject({ exit_code: 0, stdout: 'alive\n' });
  expect(alive.limit).toBeUndefined();
  return paths;
}

describe('Arena sandbox: runaway programs are contained', () => {
  it('an infinite loop ends at the time limit (124, TIME) and the run answers', async () => {
    const began = performance.now();
    const res = await runProgram(a, runA, 'loop', 'while (true) {}', { timeout_ms: 1000 });
    const wall = performance.now() - began;
    expect(res, JSON.stringify(res)).toMatchObject({ exit_code: 124, limit: 'TIME' });
    // The limit given, plus the kill grace (100 ms), with slack for a loaded machine.
    expect(res.time_ms).toBeGreaterThanOrEqual(900);
    expect(res.time_ms).toBeLessThan(2500);
    expect(wall).toBeLessThan(5000);
    expect(res.changed_files).toEqual([]);
    await stillAnswers(a, runA);
  });

  it('an infinite loop of promise jobs ends at the time limit too, not as a success', async () => {
    // Each job queues the next and returns nothing, so memory stays flat: only the clock stops it.
    // (The interrupt inside a promise job only rejects that job's promise; the run must still be TIME.)
    const res = await runProgram(
      a,
      runA,
      'loop-jobs',
      'const spin = () => { Promise.resolve().then(spin); };\nspin();',
      {
        timeout_ms: 1000,
      },
    );
    expect(res, JSON.stringify(res)).toMatchObject({ exit_code: 124, limit: 'TIME', changed_files: [] });
    expect(res.time_ms).toBeLessThan(2500);
    // Returning the next promise chains them without end: the time or the memory limit stops it.
    const chained = await runProgram(
      a,
      runA,
      'loop-jobs-chained',
      'const spin = () => Promise.resolve().then(spin);\nspin();',
      {
        timeout_ms: 1000,
      },
    );
    expect(chained.exit_code, JSON.stringify(chained)).not.toBe(0);
    expect(['TIME', 'MEMORY']).toContain(chained.limit);
    await stillAnswers(a, runA);
  });

  it('an infinite loop inside try/catch/finally cannot catch the time limit', async () => {
    const res = await runProgram(
      a,
      runA,
      'loop-catch',
      [
        'for (;;) {',
        "  try { while (true) {} } catch (error) { console.log('caught ' + error); } finally { sandbox.writeFile('late.txt', 'x'); }",
        '}',
      ].join('\n'),
      { timeout_ms: 1000 },
    );
    expect(res, JSON.stringify(res)).toMatchObject({ exit_code: 124, limit: 'TIME', changed_files: [] });
    expect(res.stdout).not.toContain('caught');
    const paths = await stillAnswers(a, runA);
    expect(paths).not.toContain('late.txt');
  });

  it('a catastrophic regular expression ends at the time limit', async () => {
    const res = await runProgram(a, runA, 'redos', "console.log(/^(a+)+$/.test('a'.repeat(40) + 'b'));", {
      timeout_ms: 1000,
    });
    expect(res, JSON.stringify(res)).toMatchObject({ exit_code: 124, limit: 'TIME' });
    expect(res.time_ms).toBeLessThan(2500);
    await stillAnswers(a, runA);
  });

  it('a runaway recursion is a STACK error, not a crash', async () => {
    const res = await runProgram(
      a,
      runA,
      'recursion',
      'function down(n) { return down(n + 1) + 1; }\ndown(0);',
    );
    expect(res.exit_code, JSON.stringify(res)).toBe(1);
    expect(res.limit).toBe('STACK');
    expect(res.stderr).toMatch(/stack/i);
    await stillAnswers(a, runA);
  });

  it('a memory bomb ends with MEMORY (137) and the run answers', async () => {
    const res = await runProgram(
      a,
      runA,
      'memory',
      'const keep = [];\nfor (;;) keep.push(new Array(100000).fill(keep.length));',
      ROOM_TO_FILL,
    );
    expect(res, JSON.stringify({ ...res, stderr: res.stderr.slice(0, 500) })).toMatchObject({
      exit_code: 137,
      limit: 'MEMORY',
    });
    await stillAnswers(a, runA);
  });

  it('a string-doubling memory bomb is contained as well', async () => {
    const res = await runProgram(a, runA, 'memory-string', "let s = 'x';\nfor (;;) s += s;", ROOM_TO_FILL);
    expect(res.exit_code, JSON.stringify({ ...res, stderr: res.stderr.slice(0, 500) })).not.toBe(0);
    expect([137, 1]).toContain(res.exit_code);
    await stillAnswers(a, runA);
  });

  it('huge output is cut at the output limit', async () => {
    const res = await runProgram(a, runA, 'output', "for (;;) console.log('x'.repeat(1000));");
    expect(res.limit, JSON.stringify({ ...res, stdout: res.stdout.length })).toBe('OUTPUT');
    expect(res.exit_code).not.toBe(0);
    expect(Buffer.byteLength(res.stdout, 'utf8')).toBeLessThanOrEqual(64 * 1024);
    await stillAnswers(a, runA);
  });

  it('a program writing files past the caps ends with FILES and nothing is written back', async () => {
    const res = await runProgram(
      a,
      runA,
      'big-file',
      "sandbox.writeFile('out/big.txt', 'y'.repeat(1024 * 1024 + 1));",
    );
    expect(res, JSON.stringify(res)).toMatchObject({ limit: 'FILES' });
    expect(res.exit_code).not.toBe(0);
    const paths = await stillAnswers(a, runA);
    expect(paths).not.toContain('out/big.txt');
  });
});

describe('Arena sandbox: nothing escapes', () => {
  it('require of a built-in module fails inside the program', async () => {
    const res = await runProgram(
      a,
      runA,
      'require-fs',
      "const fs = require('fs');\nconsole.log(fs.readFileSync('/etc/passwd', 'utf8'));",
    );
    expect(res.exit_code, JSON.stringify(res)).toBe(1);
    expect(res.stderr).toMatch(/Cannot find module 'fs'/);
    expect(res.stdout).toBe('');
    for (const name of ['child_process', 'node:fs', 'os', 'std']) {
      const other = await runProgram(a, runA, 'require-other', `require(${JSON.stringify(name)});`);
      expect(other.exit_code, name).toBe(1);
      expect(other.stderr, name).toMatch(/Cannot find module/);
    }
    await stillAnswers(a, runA);
  });

  it('process, fetch, WebAssembly and the host globals are not there', async () => {
    const names = [
      'process',
      'fetch',
      'WebAssembly',
      'Buffer',
      'XMLHttpRequest',
      'WebSocket',
      'setTimeout',
      'std',
      'os',
      'Deno',
      'Bun',
      'global',
    ];
    const source = [
      `const names = ${JSON.stringify(names)};`,
      'for (const name of names) console.log(name + "=" + typeof globalThis[name]);',
      // The Function constructor builds functions in the sandbox's own realm, not the host's.
      "const viaFunction = Function('return typeof process')();",
      'console.log("Function:process=" + viaFunction);',
      "const viaConstructor = ({}).constructor.constructor('return typeof fetch')();",
      'console.log("constructor:fetch=" + viaConstructor);',
    ].join('\n');
    const res = await runProgram(a, runA, 'globals', source);
    expect(res.exit_code, JSON.stringify(res)).toBe(0);
    const lines = res.stdout.trim().split('\n');
    for (const line of lines) expect(line).toMatch(/=undefined$/);
    expect(lines).toContain('process=undefined');
    expect(lines).toContain('fetch=undefined');
    expect(lines).toContain('WebAssembly=undefined');
    expect(lines).toContain('Function:process=undefined');
    await stillAnswers(a, runA);
  });

  it('calling process, fetch or WebAssembly throws inside the program', async () => {
    for (const [name, source] of [
      ['process', "process.mainModule.require('child_process').execSync('id');"],
      ['fetch', "fetch('http://127.0.0.1/').then((r) => console.log('FETCHED', r.status));"],
      ['wasm', 'WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0]));'],
    ] as const) {
      const res = await runProgram(a, runA, `call-${name}`, source);
      expect(res.exit_code, `${name}: ${JSON.stringify(res)}`).toBe(1);
      expect(res.stderr, name).toMatch(/ReferenceError/);
      expect(res.stdout, name).toBe('');
    }
    await stillAnswers(a, runA);
  });

  it('import() and import declarations fail inside the program', async () => {
    const dynamic = await runProgram(
      a,
      runA,
      'import-dynamic',
      [
        "import('fs').then(",
        "  (fs) => console.log('ESCAPED', typeof fs.readFileSync),",
        "  (error) => { console.log('import failed: ' + error); sandbox.exit(3); },",
        ');',
      ].join('\n'),
    );
    expect(dynamic.stdout, JSON.stringify(dynamic)).not.toContain('ESCAPED');
    expect(dynamic.exit_code, JSON.stringify(dynamic)).not.toBe(0);
    const relative = await runProgram(
      a,
      runA,
      'import-relative',
      "import('../src/calc.js').then(() => console.log('LOADED'), (e) => { console.log('failed ' + e); sandbox.exit(3); });",
    );
    expect(relative.stdout, JSON.stringify(relative)).not.toContain('LOADED');
    expect(relative.exit_code).not.toBe(0);
    const declaration = await runProgram(
      a,
      runA,
      'import-static',
      "import fs from 'fs';\nconsole.log('ESCAPED');",
    );
    expect(declaration.exit_code, JSON.stringify(declaration)).toBe(1);
    expect(declaration.stderr).toMatch(/SyntaxError/);
    expect(declaration.stdout).toBe('');
    await stillAnswers(a, runA);
  });

  it("another identity's run is NOT_FOUND, exactly like a made-up run id", async () => {
    const secret = 'notes/secret.txt';
    await write(a, runA, secret, 'the secret of A');
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['workspace.read', { path: secret }],
      ['workspace.list', {}],
      ['workspace.diff', {}],
      ['sandbox.exec', { command: ALIVE }],
      ['workspace.write', { path: secret, content: 'overwritten by B' }],
      ['workspace.delete', { path: secret }],
    ];
    const shape = (error: Record<string, unknown>, runId: string) =>
      JSON.parse(JSON.stringify(error).replaceAll(runId, '<run>'));
    for (const [tool, args] of attempts) {
      // The changing tools take an idempotency_key; a fresh one each, so nothing is replayed.
      const keyed =
        tool === 'sandbox.exec' || tool.startsWith('workspace.w') || tool.startsWith('workspace.de');
      const other = await callTool(b.client, tool, {
        run_id: runA,
        ...args,
        ...(keyed ? { idempotency_key: key() } : {}),
      });
      const madeUp = await callTool(b.client, tool, {
        run_id: MADE_UP_RUN,
        ...args,
        ...(keyed ? { idempotency_key: key() } : {}),
      });
      expect(other.isError, `${tool}: ${JSON.stringify(other.body)}`).toBe(true);
      expect(other.body.error.code, tool).toBe('NOT_FOUND');
      expect(JSON.stringify(other.body), tool).not.toContain('the secret of A');
      expect(shape(other.body.error, runA), tool).toEqual(shape(madeUp.body.error, MADE_UP_RUN));
    }
    // A's file is untouched and A's run answers; B's own run answers too.
    const read = await ok(a, 'workspace.read', { run_id: runA, path: secret }, false);
    expect(read.content).toBe('the secret of A');
    await stillAnswers(a, runA);
    await stillAnswers(b, runB);
  });

  it('workspace.write outside the tree is VALIDATION_FAILED', async () => {
    const before = await stillAnswers(a, runA);
    for (const path of [
      '../x',
      '/etc/x',
      'a/../../x',
      '..\\x',
      'a\\..\\..\\x',
      'C:/x',
      '..',
      '/',
      './../x',
    ]) {
      const error = await refused(a, 'workspace.write', { run_id: runA, path, content: 'escaped' }, true);
      expect(error.code, path).toBe('VALIDATION_FAILED');
    }
    for (const path of ['../../etc/passwd', '/etc/passwd', 'a\\..\\..\\x']) {
      const error = await refused(a, 'workspace.read', { run_id: runA, path }, false);
      expect(error.code, path).toBe('VALIDATION_FAILED');
    }
    const after = await stillAnswers(a, runA);
    expect(after).toEqual(before);
  });

  it("a program's writes, reads and requires outside the tree fail inside the sandbox", async () => {
    const before = await stillAnswers(a, runA);
    const bad = [
      '../x',
      '/etc/x',
      'a/../../x',
      '..\\x',
      'a\\..\\..\\x',
      'C:/x',
      '../../../../tmp/cairn-escape',
    ];
    const source = [
      `const bad = ${JSON.stringify(bad)};`,
      'let refusedCount = 0;',
      'for (const path of bad) {',
      "  try { sandbox.writeFile(path, 'escaped'); console.log('WROTE ' + path); }",
      "  catch (error) { refusedCount++; console.log('refused write ' + path + ': ' + error.message); }",
      '}',
      "for (const path of ['../../etc/passwd', '/etc/passwd', '..\\\\README.md']) {",
      "  try { sandbox.readFile(path); console.log('READ ' + path); }",
      "  catch (error) { refusedCount++; console.log('refused read ' + path); }",
      '}',
      "for (const spec of ['../../../etc/passwd', '/etc/passwd', '../../x.js']) {",
      "  try { require(spec); console.log('REQUIRED ' + spec); }",
      "  catch (error) { refusedCount++; console.log('refused require ' + spec); }",
      '}',
      "try { sandbox.deleteFile('../src/calc.js'); console.log('DELETED'); } catch (error) { refusedCount++; }",
      "console.log('refused ' + refusedCount);",
      'sandbox.exit(refusedCount === bad.length + 7 ? 2 : 0);',
    ].join('\n');
    const res = await runProgram(a, runA, 'escape-paths', source);
    expect(res.stdout, JSON.stringify(res)).not.toMatch(/^(WROTE|READ|REQUIRED|DELETED)/m);
    expect(res.stdout).toContain(`refused ${bad.length + 7}`);
    // Everything failed inside the program, which said so with its exit code.
    expect(res.exit_code).toBe(2);
    expect(res.changed_files).toEqual([]);
    expect(res.deleted_files).toEqual([]);
    // Only the program itself was added; no 'x', 'etc/x', 'tmp/…' or other stray file appeared.
    const after = await stillAnswers(a, runA);
    expect(after).toEqual([...before, 'attack/escape-paths.js'].sort());
  });

  it('a workspace.write over 1 MiB is refused and nothing is written', async () => {
    // Over 1 MiB of content cannot even travel: the MCP request body is capped at 1 MiB
    // (PAYLOAD_TOO_LARGE before any tool runs). Whatever layer answers, it is a refusal.
    for (const [path, content] of [
      ['big/chars.txt', 'z'.repeat(1024 * 1024 + 1)],
      ['big/bytes.txt', '€'.repeat(400_000)],
    ] as const) {
      let code: string;
      try {
        const res = await callTool(a.client, 'workspace.write', {
          run_id: runA,
          path,
          content,
          idempotency_key: key(),
        });
        expect(res.isError, JSON.stringify(res.body)).toBe(true);
        code = res.body.error.code;
      } catch (error) {
        code = /"code":"(\w+)"/.exec(String(error))?.[1] ?? String(error);
      }
      expect(['WORKSPACE_LIMIT', 'VALIDATION_FAILED', 'PAYLOAD_TOO_LARGE'], path).toContain(code);
    }
    const paths = await stillAnswers(a, runA);
    expect(paths.filter((p) => p.startsWith('big/'))).toEqual([]);
  });

  it("the run's 4 MiB cap holds for workspace.write and for a program's write-back", async () => {
    const mb = 'm'.repeat(1_000_000);
    for (let i = 0; i < 4; i++) await write(b, runB, `cap/${i}.txt`, mb);
    const over = await refused(b, 'workspace.write', { run_id: runB, path: 'cap/4.txt', content: mb }, true);
    expect(over.code).toBe('WORKSPACE_LIMIT');
    for (let i = 0; i < 4; i++) await ok(b, 'workspace.delete', { run_id: runB, path: `cap/${i}.txt` }, true);
    // Within the sandbox's own caps (1 MiB a file, 8 MiB in all) but over the run's: nothing is written back.
    await write(
      b,
      runB,
      'attack/fill.js',
      "for (let i = 0; i < 5; i++) sandbox.writeFile('fill/' + i + '.txt', 'f'.repeat(900000));",
    );
    const fill = await refused(b, 'sandbox.exec', { run_id: runB, command: 'attack/fill.js' }, true);
    expect(fill.code).toBe('WORKSPACE_LIMIT');
    const paths = await stillAnswers(b, runB);
    expect(paths.filter((p) => p.startsWith('cap/') || p.startsWith('fill/'))).toEqual([]);
  });
});

describe('Arena sandbox: a storm of parallel runs', () => {
  it('20 runs at once: each succeeds or is DEGRADED_MODE, and /health answers within 1 s', async () => {
    const RUNS = 20;
    const busy = [
      'const end = Date.now() + 1500;',
      'let spins = 0;',
      'while (Date.now() < end) spins++;',
      "console.log('spun ' + (spins > 0));",
    ].join('\n');
    const members = await Promise.all(
      Array.from({ length: RUNS }, async () => {
        const m = await arenaMember(server);
        const { runId } = await startedRun(server, m, 'fix-failing-program');
        await write(m, runId, 'busy.js', busy);
        return { m, runId };
      }),
    );

    // Both sandbox threads warm first (as after any earlier run), so the storm measures running
    // programs rather than thread start-up.
    await Promise.all([stillAnswers(a, runA), stillAnswers(b, runB)]);
    const probe = await startHealthProbe(`${server.url}/health`);
    // The pool's own gauges, sampled throughout: never more than 2 running and 8 waiting.
    const pool = server.app.services.arenaRuns.sandbox;
    const seen = { running: 0, waiting: 0 };
    const gauges = setInterval(() => {
      seen.running = Math.max(seen.running, pool.activeJobs);
      seen.waiting = Math.max(seen.waiting, pool.waitingJobs);
    }, 10);
    let outcomes: Array<
      { ok: true; body: Record<string, unknown> } | { ok: false; error: Record<string, unknown> }
    >;
    const began = performance.now();
    try {
      outcomes = await Promise.all(
        members.map(async ({ m, runId }) => {
          const res = await callTool(m.client, 'sandbox.exec', {
            run_id: runId,
            command: 'busy.js',
            idempotency_key: key(),
          });
          return res.isError
            ? { ok: false as const, error: res.body.error }
            : { ok: true as const, body: res.body };
        }),
      );
    } finally {
      clearInterval(gauges);
      await probe.stop();
    }
    const stormMs = performance.now() - began;
    const latencies = probe.results.map((r) => (r.status === 200 ? r.ms : Number.POSITIVE_INFINITY));

    const succeeded = outcomes.filter((o) => o.ok);
    const degraded = outcomes.filter((o) => !o.ok);
    for (const o of degraded) {
      expect(o.error, JSON.stringify(o.error)).toMatchObject({ code: 'DEGRADED_MODE', retryable: true });
      expect((o.error.details as { retry_after_seconds: number }).retry_after_seconds).toBeGreaterThan(0);
    }
    for (const o of succeeded) {
      expect(o.body, JSON.stringify(o.body)).toMatchObject({ exit_code: 0, stdout: 'spun true\n' });
    }
    // Two threads and eight places in line: the rest are turned away at once (a place freed by
    // a finished run may take one more, so the count of runs that ran can pass ten).
    expect(succeeded.length).toBeGreaterThanOrEqual(2);
    expect(seen.running).toBeLessThanOrEqual(2);
    expect(seen.waiting).toBeLessThanOrEqual(8);
    const maxLatency = Math.max(...latencies);
    console.info(
      `storm: ${RUNS} runs in ${Math.round(stormMs)} ms, ${succeeded.length} ran, ${degraded.length} DEGRADED_MODE ` +
        `(at most ${seen.running} running, ${seen.waiting} waiting); ` +
        `${latencies.length} /health probes, max ${Math.round(maxLatency)} ms`,
    );
    // The probes ran throughout the storm (their own process keeps their pace).
    expect(latencies.length).toBeGreaterThanOrEqual(Math.floor(stormMs / 200));
    expect(maxLatency).toBeLessThan(1000);

    // After the storm every run answers, including one that was turned away.
    const first = degraded.length > 0 ? outcomes.findIndex((o) => !o.ok) : 0;
    const { m, runId } = members[first] as (typeof members)[number];
    const after = await ok(m, 'sandbox.exec', { run_id: runId, command: 'busy.js' }, true);
    expect(after).toMatchObject({ exit_code: 0, stdout: 'spun true\n' });
    await stillAnswers(a, runA);
  }, 90_000);
});

interface ProbeResult {
  sent: number;
  ms: number;
  status: number;
}

/**
 * GET `url` every 100 ms from a process of its own, so the probes keep their pace even when this
 * process's event loop (which also serves the test server) stalls: a stall shows as latency.
 */
async function startHealthProbe(url: string) {
  const script = `
    let inflight = 0, stopping = false;
    const timer = setInterval(async () => {
      inflight++;
      const sent = performance.now();
      let status = 0;
      try {
        const res = await fetch(process.argv[1], { signal: AbortSignal.timeout(5000) });
        await res.text();
        status = res.status;
      } catch {}
      process.stdout.write(JSON.stringify({ sent, ms: performance.now() - sent, status }) + '\\n');
      if (--inflight === 0 && stopping) process.exit(0);
    }, 100);
    process.stdin.on('end', () => { stopping = true; clearInterval(timer); if (inflight === 0) process.exit(0); });
    process.stdin.resume();`;
  const child = spawn(process.execPath, ['-e', script, url], { stdio: ['pipe', 'pipe', 'inherit'] });
  const results: ProbeResult[] = [];
  let first: () => void = () => {};
  const started = new Promise<void>((resolve) => {
    first = resolve;
  });
  let buffered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) results.push(JSON.parse(line) as ProbeResult);
    if (results.length > 0) first();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await started;
  results.length = 0;
  return {
    results,
    stop: async () => {
      child.stdin.end();
      await exited;
    },
  };
}
