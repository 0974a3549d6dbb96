import { afterAll, describe, expect, it } from 'vitest';
import { Sandbox } from './sandbox.ts';
import { type ExecResult, SANDBOX_LIMITS, type SandboxFile } from './types.ts';

// One pool for the file: starting a thread (tsx, then the WebAssembly module) is the slow part.
const sandbox = new Sandbox({ maxJobs: 2, maxWaiting: 8, maxTimeoutMs: 5_000, niceness: 0 });
afterAll(() => sandbox.close());

const run = (code: string, extra: SandboxFile[] = [], timeoutMs = 1_500): Promise<ExecResult> =>
  sandbox.exec({ files: [{ path: 'main.js', content: code }, ...extra], entry: 'main.js', timeoutMs });

/** The sandbox still answers, correctly, after whatever the previous run did. */
async function expectStillAnswering(): Promise<void> {
  const after = await run("console.log('still here', 6 * 7)");
  expect(after).toMatchObject({ exitCode: 0, stdout: 'still here 42\n', stderr: '' });
}

describe('Sandbox: programs', () => {
  it('runs a program that reads a file, requires helpers, writes an output file and prints', async () => {
    const files: SandboxFile[] = [
      {
        path: 'src/main.js',
        content: [
          "const { shout } = require('./lib/text');",
          "const config = require('../config.json');",
          "const input = sandbox.readFile('data/in.txt');",
          "sandbox.writeFile('out/result.txt', shout(input) + config.suffix);",
          "console.log('wrote', { bytes: input.length, files: sandbox.listFiles().length });",
        ].join('\n'),
      },
      { path: 'src/lib/text.js', content: 'module.exports.shout = (s) => s.toUpperCase();' },
      { path: 'config.json', content: '{"suffix": "!"}' },
      { path: 'data/in.txt', content: 'hello' },
    ];
    const result = await sandbox.exec({ files, entry: 'src/main.js' });
    expect(result).toMatchObject({
      exitCode: 0,
      stdout: 'wrote { bytes: 5, files: 5 }\n',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      changed: [{ path: 'out/result.txt', content: 'HELLO!' }],
      deleted: [],
    });
    expect(result.limit).toBeUndefined();
    expect(result.memoryBytes).toBeGreaterThan(0);
    expect(result.timeMs).toBeGreaterThanOrEqual(0);
  });

  it('exits 1 with the stack trace on stderr when a test program fails', async () => {
    const test =
      "const add = require('./add.js');\nfunction check() {\n  if (add(2, 2) !== 4) throw new Error('add(2, 2) should be 4');\n}\ncheck();\n";
    const result = await run(test, [{ path: 'add.js', content: 'module.exports = (a, b) => a - b;' }]);
    expect(result.exitCode).toBe(1);
    expect(result.limit).toBeUndefined();
    expect(result.stderr).toContain('Uncaught Error: add(2, 2) should be 4');
    expect(result.stderr).toMatch(/at check \(main\.js:3:\d+\)/);
    expect(result.stderr).not.toContain('<sandbox>');
  });

  it('gives the program its args, stdin and files; sandbox.exit ends it at once with its code', async () => {
    const code =
      "console.log(sandbox.args.join(','), sandbox.stdin.trim());\nsandbox.deleteFile('old.txt');\nsandbox.exit(3);\nconsole.log('never');";
    const result = await sandbox.exec({
      files: [
        { path: 'main.js', content: code },
        { path: 'old.txt', content: 'x' },
      ],
      entry: 'main.js',
      args: ['a', 'b'],
      stdin: 'line\n',
    });
    expect(result).toMatchObject({ exitCode: 3, stdout: 'a,b line\n', deleted: ['old.txt'], changed: [] });
  });

  it('runs promise jobs and async functions to the end', async () => {
    const result = await run("(async () => { await null; console.log('async done'); })();");
    expect(result).toMatchObject({ exitCode: 0, stdout: 'async done\n' });
  });

  it('refuses a request it cannot start, as exit code 125', async () => {
    expect(await sandbox.exec({ files: [], entry: 'missing.js' })).toMatchObject({
      exitCode: 125,
      stderr: 'sandbox: No such file: missing.js\n',
    });
    const outside = await sandbox.exec({ files: [{ path: '../evil.js', content: '' }], entry: 'evil.js' });
    expect(outside.exitCode).toBe(125);
    const big = 'x'.repeat(SANDBOX_LIMITS.fileBytes + 1);
    expect((await run('', [{ path: 'big.txt', content: big }])).exitCode).toBe(125);
  });
});

describe('Sandbox: limits and escapes', () => {
  it('stops a tight loop at the time limit (124, TIME)', async () => {
    const result = await run('for (;;) {}', [], 1_000);
    expect(result).toMatchObject({ exitCode: 124, limit: 'TIME', changed: [], deleted: [] });
    expect(result.timeMs).toBeGreaterThanOrEqual(990);
    expect(result.timeMs).toBeLessThan(1_000 + 600);
    await expectStillAnswering();
  });

  it('terminates the thread of a program blocked in one long builtin, which the interrupt handler cannot reach', async () => {
    const before = sandbox.terminatedWorkers;
    // BigInt#toString of a million-bit number runs for seconds without polling the interrupt handler.
    const result = await run("console.log('started'); (3n ** 600000n).toString().length;", [], 500);
    expect(result).toMatchObject({ exitCode: 124, limit: 'TIME', stdout: 'started\n' });
    expect(result.stderr).toContain('time limit of 500 ms exceeded');
    expect(result.timeMs).toBeLessThan(500 + 600);
    expect(sandbox.terminatedWorkers).toBe(before + 1);
    await expectStillAnswering();
  });

  it('contains deep recursion (STACK), in the program and in a native parser', async () => {
    const recursion = await run('function f(n) { return f(n + 1) + 1; }\nf(0);');
    expect(recursion).toMatchObject({ exitCode: 1, limit: 'STACK' });
    expect(recursion.stderr).toMatch(/stack overflow/);
    expect(recursion.stderr).toMatch(/the frame above \d+ more times/);
    const nested = await run("JSON.parse('['.repeat(1000000));");
    expect(nested).toMatchObject({ exitCode: 1, limit: 'STACK' });
    const caught = await run(
      "function f() { return f() + 1; }\ntry { f(); } catch (e) { console.log('caught', e.message); }",
    );
    expect(caught).toMatchObject({ exitCode: 0, stdout: 'caught stack overflow\n' });
    await expectStillAnswering();
  });

  it('stops a memory bomb at the cap (137, MEMORY)', async () => {
    // Many small objects: QuickJS's own count lags behind them, the WebAssembly memory ceiling does not.
    // A generous time limit, since on a loaded machine filling 64 MiB may take a while.
    const result = await run(
      'const a = [];\nfor (;;) a.push({ n: a.length, s: "x" + a.length });',
      [],
      5_000,
    );
    expect(result).toMatchObject({ exitCode: 137, limit: 'MEMORY' });
    expect(result.memoryBytes).toBeGreaterThan(SANDBOX_LIMITS.memoryBytes / 2);
    expect(result.memoryBytes).toBeLessThanOrEqual(SANDBOX_LIMITS.memoryBytes + SANDBOX_LIMITS.wasmBaseBytes);
    const big = await run("'x'.repeat(2 ** 29).length");
    expect(big).toMatchObject({ exitCode: 137, limit: 'MEMORY' });
    await expectStillAnswering();
  });

  it('stops promise jobs that fill memory at the cap (137, MEMORY), not as a success', async () => {
    // Each job chains the next: memory grows until an allocation fails inside a job, which only
    // rejects that job's promise; the run must still say it hit the cap. Time enough to get there.
    const result = await run('const spin = () => Promise.resolve().then(spin);\nspin();', [], 10_000);
    expect(result).toMatchObject({ exitCode: 137, limit: 'MEMORY' });
    expect(result.stderr).toContain('out of memory');
    await expectStillAnswering();
  });

  it('stops a program whose async functions fill memory at the cap (137, MEMORY), though only their promises rejected', async () => {
    // The allocation fails inside the async function, so it rejects that function's promise and
    // the program itself ends with nothing thrown, once left unhandled and once caught. Without
    // the check on how far the heap grew, both ended as successes (exit 0, nothing on stderr).
    const unhandled = await run(
      "(async () => { const a = []; for (;;) a.push('x'.repeat(100000) + a.length); })();\nconsole.log('main done');",
      [],
      5_000,
    );
    expect(unhandled).toMatchObject({ exitCode: 137, limit: 'MEMORY', stdout: 'main done\n' });
    expect(unhandled.stderr).toContain('out of memory');
    const caught = await run(
      "(async () => { await null; const a = []; for (;;) a.push({ n: a.length, s: 'y'.repeat(1000) + a.length }); })().catch(() => {});",
      [],
      5_000,
    );
    expect(caught).toMatchObject({ exitCode: 137, limit: 'MEMORY' });
    await expectStillAnswering();
  });

  it('reads what a program threw itself: a toJSON it installs cannot relabel a plain error (issue 40)', async () => {
    const forged = await run(
      "Object.prototype.toJSON = function () { return { name: 'InternalError', message: 'out of memory' }; };\n" +
        "throw new Error('plain failure');",
    );
    expect(forged).toMatchObject({ exitCode: 1 });
    expect(forged.limit).toBeUndefined();
    expect(forged.stderr).toContain('Uncaught Error: plain failure');
    expect(forged.memoryBytes).toBeLessThan(SANDBOX_LIMITS.memoryBytes / 2);
    await expectStillAnswering();
  });

  it('truncates huge output and ends the run (OUTPUT)', async () => {
    const result = await run("for (;;) { console.log('spam'.repeat(100)); console.error('err'); }");
    expect(result).toMatchObject({ exitCode: 1, limit: 'OUTPUT', stdoutTruncated: true });
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(SANDBOX_LIMITS.outputBytes);
    expect(Buffer.byteLength(result.stderr)).toBeLessThanOrEqual(SANDBOX_LIMITS.outputBytes);
    const both = await run("for (;;) console.error('e'.repeat(1000));");
    expect(both).toMatchObject({
      limit: 'OUTPUT',
      stderrTruncated: true,
      stdoutTruncated: false,
      stdout: '',
    });
    await expectStillAnswering();
  });

  it('caps writes (FILES)', async () => {
    const many = await run("for (let i = 0; ; i++) sandbox.writeFile('f/' + i + '.txt', 'x');");
    expect(many).toMatchObject({ exitCode: 1, limit: 'FILES' });
    expect(many.changed).toHaveLength(SANDBOX_LIMITS.files - 1);
    expect(many.stderr).toContain(`at most ${SANDBOX_LIMITS.files} files`);
    const large = await run(
      `try { sandbox.writeFile('big', 'x'.repeat(${SANDBOX_LIMITS.fileBytes + 1})); } catch (e) {}\nconsole.log('caught, yet stopped');`,
    );
    expect(large).toMatchObject({ exitCode: 1, limit: 'FILES', stdout: '', changed: [] });
  });

  it('has no node modules: require of fs, child_process or any outside path fails inside the program', async () => {
    const code = [
      "for (const name of ['fs', 'child_process', 'node:fs', '/etc/passwd', '../outside.js', 'https://example.test/x.js']) {",
      "  try { require(name); console.log('LOADED', name); } catch (e) { console.log('refused', name); }",
      '}',
    ].join('\n');
    const result = await run(code);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).not.toContain('LOADED');
    expect(result.stdout.match(/refused/g)).toHaveLength(6);
  });

  it('has no process, fetch, WebAssembly, timers or host globals', async () => {
    const names = [
      'process',
      'fetch',
      'WebAssembly',
      'setTimeout',
      'setInterval',
      'Buffer',
      'XMLHttpRequest',
      'std',
      'os',
    ];
    const result = await run(
      `console.log(${JSON.stringify(names)}.map((n) => n + '=' + typeof globalThis[n]).join(' '));\nprocess.exit(0);`,
    );
    expect(result.stdout).toBe(`${names.map((n) => `${n}=undefined`).join(' ')}\n`);
    expect(result).toMatchObject({ exitCode: 1 });
    expect(result.stderr).toContain('ReferenceError');
    expect((await run('process.env.HOME')).stderr).toContain("'process' is not defined");
  });

  it('refuses dynamic import of modules and URLs; static import does not parse', async () => {
    const code = [
      "import('fs').then(() => console.log('LOADED fs'), (e) => console.log('refused fs', e.message));",
      "import('https://example.test/x.js').then(() => console.log('LOADED url'), () => console.log('refused url'));",
    ].join('\n');
    const result = await run(code);
    expect(result).toMatchObject({ exitCode: 0 });
    expect(result.stdout).toBe("refused fs could not load module 'fs'\nrefused url\n");
    const staticImport = await run("import fs from 'fs';");
    expect(staticImport.exitCode).toBe(1);
    expect(staticImport.stderr).toContain('SyntaxError');
  });

  it('keeps escapes through the host functions inside QuickJS', async () => {
    const code = [
      'const F = sandbox.readFile.constructor;',
      "console.log(F('return typeof process')(), F('try { return require(\"fs\") } catch (e) { return e.name }')());",
      "const g = F('return this')();",
      "console.log(g === globalThis, typeof g.process, Object.keys(g).sort().join(','));",
      "console.log(console.log.constructor('return typeof globalThis.process')());",
      "try { sandbox.readFile.call({}, 'x'); } catch (e) { console.log('no file', e.message); }",
      "console.log(Object.getOwnPropertyNames(sandbox.readFile).sort().join(','));",
    ].join('\n');
    const result = await run(code);
    expect(result.stderr).toBe('');
    expect(result.stdout.split('\n')).toEqual([
      'undefined SandboxPathError',
      'true undefined console,require,sandbox',
      'undefined',
      "no file ENOENT: no such file 'x'",
      'length,name',
      '',
    ]);
  });

  it('confines paths to the tree: .., absolute paths and backslashes throw inside the program', async () => {
    const attempts = ["'../x'", "'/etc/passwd'", "'a/../../x'", "'..\\\\x'", "'C:/x'"];
    const code = attempts
      .flatMap((path) => [
        `try { sandbox.writeFile(${path}, 'y'); console.log('WROTE'); } catch (e) { console.log(e.message); }`,
        `try { sandbox.readFile(${path}); console.log('READ'); } catch (e) { console.log(e.message); }`,
      ])
      .join('\n');
    const result = await run(code);
    expect(result).toMatchObject({ exitCode: 0, changed: [], deleted: [] });
    expect(result.stdout).not.toMatch(/WROTE|READ/);
    expect(result.stdout).toContain("'..' is not allowed in paths: ../x");
    expect(result.stdout).toContain('Absolute paths are outside the workspace: /etc/passwd');
    expect(result.stdout).toContain('Backslashes are not allowed');
  });

  it('keeps runs apart: one exec never sees another one’s files or globals', async () => {
    const writer =
      "globalThis.secret = 'A'; sandbox.writeFile('secret.txt', 'A');\nfor (let i = 0; i < 3e6; i++) {}";
    const reader =
      "console.log(typeof globalThis.secret, sandbox.listFiles().join(','));\ntry { sandbox.readFile('secret.txt'); console.log('LEAK'); } catch (e) { console.log('absent'); }";
    const [first, second] = await Promise.all([run(writer), run(reader)]);
    const third = await run(reader);
    expect(first).toMatchObject({ exitCode: 0, changed: [{ path: 'secret.txt', content: 'A' }] });
    expect(second.stdout).toBe('undefined main.js\nabsent\n');
    expect(third.stdout).toBe('undefined main.js\nabsent\n');
  });

  it('clamps a requested timeout to maxTimeoutMs', async () => {
    const short = new Sandbox({ maxJobs: 1, maxWaiting: 0, maxTimeoutMs: 300, niceness: 0 });
    try {
      const result = await short.exec({
        files: [{ path: 'main.js', content: 'for (;;) {}' }],
        entry: 'main.js',
        timeoutMs: 60_000,
      });
      expect(result).toMatchObject({ exitCode: 124, limit: 'TIME' });
      expect(result.timeMs).toBeLessThan(300 + 600);
    } finally {
      await short.close();
    }
  });
});
