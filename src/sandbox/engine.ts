/**
 * Runs one program in a fresh QuickJS runtime and context (synchronously: the caller is a
 * worker thread, or a benchmark measuring the engine alone). The program reaches the outside
 * only through the host functions made here, and they only touch the run's own Workspace and
 * output buffer. The interrupt handler is the first line of the time limit and the way a
 * sandbox.exit or a broken cap stops the program; the pool's worker termination is the last.
 */
import type { QuickJSContext, QuickJSHandle, QuickJSWASMModule } from 'quickjs-emscripten';
import type { OutputWriter } from './output.ts';
import { PRELUDE, wrapModule } from './prelude.ts';
import { EXIT, type RunJob, type RunOutcome, SANDBOX_LIMITS, type SandboxLimit } from './types.ts';
import { FilesLimitError, Workspace } from './workspace.ts';

/** Why the interrupt handler stopped the program, when it did. */
type Stop = { kind: 'exit'; code: number } | { kind: 'limit'; limit: SandboxLimit };

interface RunState {
  stop: Stop | undefined;
  timedOut: boolean;
}

/** A thrown value as QuickJS's dump shows it. */
interface Thrown {
  name?: unknown;
  message?: unknown;
  stack?: unknown;
}

const isOutOfMemory = (thrown: Thrown): boolean =>
  thrown.name === 'InternalError' &&
  typeof thrown.message === 'string' &&
  thrown.message.startsWith('out of memory');
const isStackOverflow = (thrown: Thrown): boolean =>
  /stack overflow|call stack size/i.test(String(thrown.message));

/**
 * Stack frames of the prelude's loader (and the native `call` that enters a module) say nothing
 * to the program's author; the program's own frames stay.
 */
function programFrames(stack: string): string {
  const lines = stack.replace(/\n$/, '').split('\n');
  const own = lines.filter(
    (line, i) =>
      !line.includes('(<sandbox>:') &&
      !(/^\s*at call \(native\)$/.test(line) && lines[i + 1]?.includes('(<sandbox>:')),
  );
  // A runaway recursion repeats one frame thousands of times: it is said once, with the count.
  const kept: string[] = [];
  for (let i = 0; i < own.length; ) {
    let end = i + 1;
    while (end < own.length && own[end] === own[i]) end++;
    kept.push(own[i] as string);
    if (end - i > 1) kept.push(`    ... the frame above ${end - i - 1} more times`);
    i = end;
  }
  return kept.join('\n');
}

/** Runs `job` to its end in `engine`; never throws for anything the program does. */
export function runProgram(engine: QuickJSWASMModule, job: RunJob, output: OutputWriter): RunOutcome {
  const workspace = new Workspace(job.files, job.limits);
  const state: RunState = { stop: undefined, timedOut: false };
  const runtime = engine.newRuntime();
  runtime.setMemoryLimit(job.limits.memoryBytes);
  runtime.setMaxStackSize(job.limits.stackBytes);
  runtime.setInterruptHandler(() => {
    if (state.stop) return true;
    if (Date.now() > job.deadline) state.timedOut = true;
    return state.timedOut;
  });
  const context = runtime.newContext();
  const heap = engine.getWasmMemory();
  const heapAtStart = heap.buffer.byteLength;
  let outcome: RunOutcome;
  try {
    const thrown = evaluate(context, job, workspace, output, state);
    // The memory cap can leave QuickJS unable to build even the error object: it throws null then.
    const growth = heap.buffer.byteLength - heapAtStart;
    const ceiling = SANDBOX_LIMITS.wasmBaseBytes + job.limits.memoryBytes - 1024 * 1024;
    const exhausted =
      thrown !== undefined &&
      thrown.name === undefined &&
      (growth >= job.limits.memoryBytes / 2 || heap.buffer.byteLength >= ceiling);
    // An allocation that fails inside a promise job only rejects that job's promise, so a program
    // whose jobs drive memory to the cap can end with no error at all. The memory it grew to
    // during this run says so (a pool thread starts every run on a fresh module, sandbox.ts).
    const endedAtCap = thrown === undefined && growth > 0 && heap.buffer.byteLength >= ceiling;
    outcome = outcomeOf(
      exhausted || endedAtCap ? { name: 'InternalError', message: 'out of memory' } : thrown,
      state,
      output,
    );
    outcome.memoryBytes = Math.max(memoryUsed(context), growth);
  } catch (error) {
    // The engine itself failed (a WebAssembly trap such as the native stack running out): the
    // runtime is left mid-call and must not be touched again, nor the module reused.
    const overflow = isStackOverflow({ name: (error as Error)?.name, message: (error as Error)?.message });
    output.write('stderr', `sandbox: the engine stopped: ${String(error)}\n`);
    return {
      exitCode: overflow ? EXIT.ERROR : EXIT.REFUSED,
      memoryBytes: 0,
      ...(overflow ? { limit: 'STACK' as const } : {}),
      changed: [],
      deleted: [],
      engineBroken: true,
    };
  }
  if (outcome.limit !== 'TIME') Object.assign(outcome, workspace.changes());
  try {
    context.dispose();
    runtime.dispose();
  } catch {
    outcome.engineBroken = true;
  }
  return outcome;
}

/** Builds the world, runs the entry and its promise jobs; returns what was thrown, if anything. */
function evaluate(
  context: QuickJSContext,
  job: RunJob,
  workspace: Workspace,
  output: OutputWriter,
  state: RunState,
): Thrown | undefined {
  const stopWith = (stop: Stop, message: string): never => {
    state.stop ??= stop;
    throw new Error(message);
  };
  // Host functions: each takes strings out of QuickJS, never hands a host object in.
  const guard = (fn: (...args: QuickJSHandle[]) => QuickJSHandle | undefined) => {
    return (...args: QuickJSHandle[]) => {
      if (state.stop) throw new Error('The program is stopping.');
      try {
        return fn(...args);
      } catch (error) {
        if (error instanceof FilesLimitError) stopWith({ kind: 'limit', limit: 'FILES' }, error.message);
        throw error;
      }
    };
  };
  const text = (handle: QuickJSHandle | undefined, what: string): string => {
    if (handle === undefined || context.typeof(handle) !== 'string')
      throw new TypeError(`${what} must be a string.`);
    return context.getString(handle);
  };
  const write = (fd: QuickJSHandle | undefined, chunk: QuickJSHandle | undefined) => {
    const stream = context.getNumber(fd ?? context.undefined) === 2 ? 'stderr' : 'stdout';
    if (!output.write(stream, text(chunk, 'Output'))) {
      stopWith(
        { kind: 'limit', limit: 'OUTPUT' },
        `The ${stream} limit of ${job.limits.outputBytes} bytes was reached.`,
      );
    }
    return undefined;
  };
  const compile = (path: QuickJSHandle | undefined, source: QuickJSHandle | undefined) => {
    const result = context.evalCode(wrapModule(text(source, 'Source')), text(path, 'Path'));
    if (result.error) throw result.error;
    return result.value;
  };
  const exit = (code: QuickJSHandle | undefined) => {
    const value = code === undefined ? 0 : context.getNumber(code);
    const exitCode = Number.isInteger(value) && value >= 0 && value <= 255 ? value : EXIT.ERROR;
    return stopWith({ kind: 'exit', code: exitCode }, `sandbox.exit(${exitCode})`);
  };
  const functions: Record<string, (...args: QuickJSHandle[]) => QuickJSHandle | undefined> = {
    write,
    compile,
    exit,
    readFile: (path) => context.newString(workspace.read(text(path, 'The path'))),
    writeFile: (path, content) => {
      workspace.write(text(path, 'The path'), text(content, 'The content'));
      return undefined;
    },
    deleteFile: (path) => {
      workspace.delete(text(path, 'The path'));
      return undefined;
    },
    listFiles: () => {
      const list = context.newArray();
      workspace.list().forEach((path, index) => {
        context.newString(path).consume((item) => context.setProp(list, index, item));
      });
      return list;
    },
    resolve: (fromDir, specifier) =>
      context.newString(
        workspace.resolveModule(text(fromDir, 'The folder'), text(specifier, 'The module name')),
      ),
  };
  const host = context.newObject();
  try {
    for (const [name, fn] of Object.entries(functions)) {
      context.newFunction(name, guard(fn)).consume((handle) => context.setProp(host, name, handle));
    }
    const args = context.newArray();
    job.args.forEach((arg, index) => {
      context.newString(arg).consume((item) => context.setProp(args, index, item));
    });
    context.setProp(host, 'args', args);
    args.dispose();
    context.newString(job.stdin).consume((stdin) => context.setProp(host, 'stdin', stdin));
    const setup = context.evalCode(PRELUDE, '<sandbox>');
    if (setup.error) return thrownOf(context, setup.error);
    const loadPath = setup.value.consume((factory) => context.callFunction(factory, context.undefined, host));
    if (loadPath.error) return thrownOf(context, loadPath.error);
    const ran = loadPath.value.consume((load) =>
      context.newString(job.entry).consume((entry) => context.callFunction(load, context.undefined, entry)),
    );
    if (ran.error) return thrownOf(context, ran.error);
    ran.value.dispose();
    // Promise jobs (async functions, then-callbacks) run to the end, under the same interrupt handler.
    const jobs = context.runtime.executePendingJobs();
    if (jobs.error) return thrownOf(context, jobs.error);
    return undefined;
  } finally {
    host.dispose();
  }
}

/**
 * What was thrown, read by the host one property at a time, and only values that are strings.
 * Never through `context.dump`, which serialises objects with the guest's JSON.stringify and so
 * calls a toJSON the program may have put on Object.prototype (issue 40: a plain throw reported
 * itself as MEMORY that way).
 */
function thrownOf(context: QuickJSContext, handle: QuickJSHandle): Thrown {
  return handle.consume((error) => {
    const kind = context.typeof(error);
    if (kind === 'string') return { message: context.getString(error) };
    if (kind === 'number') return { message: String(context.getNumber(error)) };
    if (context.sameValue(error, context.null)) return { message: null };
    if (kind !== 'object') return { message: kind };
    const read = (key: string): string | undefined =>
      context
        .getProp(error, key)
        .consume((value) => (context.typeof(value) === 'string' ? context.getString(value) : undefined));
    return { name: read('name'), message: read('message') ?? '(a thrown object)', stack: read('stack') };
  });
}

function outcomeOf(thrown: Thrown | undefined, state: RunState, output: OutputWriter): RunOutcome {
  const base = { memoryBytes: 0, changed: [], deleted: [], engineBroken: false };
  if (state.stop?.kind === 'exit') return { ...base, exitCode: state.stop.code };
  if (state.stop?.kind === 'limit') {
    output.write('stderr', `sandbox: ${thrown?.message ?? `${state.stop.limit} limit reached`}\n`);
    return { ...base, exitCode: EXIT.ERROR, limit: state.stop.limit };
  }
  // Before "nothing thrown": an interrupt inside a promise job only rejects that job's promise,
  // so a program spinning in promise jobs ends without an error, yet it ran out of time.
  if (state.timedOut) {
    output.write('stderr', 'sandbox: time limit exceeded\n');
    return { ...base, exitCode: EXIT.TIMEOUT, limit: 'TIME' };
  }
  if (thrown === undefined) return { ...base, exitCode: EXIT.OK };
  const described =
    thrown.name === undefined ? String(thrown.message) : `${String(thrown.name)}: ${String(thrown.message)}`;
  const frames = typeof thrown.stack === 'string' ? programFrames(thrown.stack) : '';
  const stack = frames === '' ? '' : `\n${frames}`;
  output.write('stderr', `Uncaught ${described}${stack}\n`);
  if (isOutOfMemory(thrown)) return { ...base, exitCode: EXIT.MEMORY, limit: 'MEMORY' };
  if (isStackOverflow(thrown)) return { ...base, exitCode: EXIT.ERROR, limit: 'STACK' };
  return { ...base, exitCode: EXIT.ERROR };
}

/** QuickJS's own count of the bytes it holds (0 if it cannot even say). */
function memoryUsed(context: QuickJSContext): number {
  try {
    // One own property of the object QuickJS builds, read as a number: no guest code runs.
    return context.runtime
      .computeMemoryUsage()
      .consume((usage) =>
        context
          .getProp(usage, 'memory_used_size')
          .consume((size) => (context.typeof(size) === 'number' ? context.getNumber(size) : 0)),
      );
  } catch {
    return 0;
  }
}
