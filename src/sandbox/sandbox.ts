/**
 * The sandbox pool (DESIGN.md, Dependencies: sandbox). Each run takes one of `maxJobs` slots,
 * each slot one worker thread holding a QuickJS engine, so the main event loop never runs a
 * program. A short, bounded line of waiting runs absorbs bursts; past it the caller gets
 * DEGRADED_MODE with a retry hint. The wall-clock limit is enforced from outside: a run still
 * going `killGraceMs` after its deadline has its thread terminated (the interrupt handler
 * inside cannot stop a program blocked in one long builtin), and the slot gets a fresh thread.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { DomainError } from '../kernel/errors.ts';
import { FairShares } from '../kernel/fair-shares.ts';
import { allocateOutput, OutputWriter, readOutput } from './output.ts';
import { checkRequest, RequestRefused, refusedResult, runLimits } from './request.ts';
import {
  EXIT,
  type ExecRequest,
  type ExecResult,
  type RunJob,
  type RunOutcome,
  SANDBOX_LIMITS,
} from './types.ts';
import type { WorkerConfig, WorkerJob, WorkerMessage } from './worker.ts';

export interface SandboxOptions {
  /** Runs at once, one thread each. */
  maxJobs: number;
  /** Runs that may wait for a thread; beyond running plus waiting, exec throws DEGRADED_MODE at once. */
  maxWaiting: number;
  memoryBytes?: number;
  stackBytes?: number;
  defaultTimeoutMs?: number;
  maxTimeoutMs?: number;
  /**
   * The threads' nice value on Linux (default 10: a busy program yields the CPU to the server's
   * event loop). Tests that time the limits themselves run at 0, so a loaded test machine does
   * not turn a memory limit into a time-out.
   */
  niceness?: number;
}

const WORKER_ENTRY = fileURLToPath(new URL('./worker-entry.mjs', import.meta.url));
const RETRY_AFTER_SECONDS = 5;
/** V8 heap of a sandbox thread: the file tree and its copies live there, the program does not. */
const WORKER_HEAP_MB = 128;

/** One thread's place in the pool; its worker is started on first use and replaced after a kill. */
interface Slot {
  worker: Promise<Worker> | undefined;
}

/**
 * Whose run it is, for fair shares (issue 40): one owner's programs take at most all threads but
 * one while anyone else could use it, wait in a line of their own, and one run has one program
 * going at a time. Without it, a single agent's endless loops held every thread and the whole
 * line, and everybody else got DEGRADED_MODE.
 */
export interface SandboxShare {
  owner: string;
  run: string;
}

interface Waiter {
  tenant: string | undefined;
  start(slot: Slot): void;
  fail(error: Error): void;
}

type Ending =
  | { kind: 'outcome'; outcome: RunOutcome }
  | { kind: 'killed' }
  | { kind: 'crashed'; error: unknown };

export class Sandbox {
  private readonly maxWaiting: number;
  private readonly config: WorkerConfig;
  private readonly stackBytes: number;
  private readonly defaultTimeoutMs: number;
  private readonly maxTimeoutMs: number;
  private readonly free: Slot[] = [];
  /** Runs waiting for a slot, first come first served within each owner's share. */
  private readonly waiting: Waiter[] = [];
  /** Fair shares per owner (issue 40), and the runs with a program going or waiting. */
  private readonly shares: FairShares;
  private readonly busyRuns = new Set<string>();
  private readonly slots: Slot[] = [];
  private running = 0;
  private terminated = 0;
  private closed = false;

  constructor(options: SandboxOptions) {
    const maxJobs = Math.max(1, Math.floor(options.maxJobs));
    this.maxWaiting = Math.max(0, Math.floor(options.maxWaiting));
    this.config = {
      wasmBaseBytes: SANDBOX_LIMITS.wasmBaseBytes,
      memoryBytes: options.memoryBytes ?? SANDBOX_LIMITS.memoryBytes,
      niceness: options.niceness ?? 10,
    };
    this.stackBytes = options.stackBytes ?? SANDBOX_LIMITS.stackBytes;
    this.maxTimeoutMs = options.maxTimeoutMs ?? SANDBOX_LIMITS.maxTimeoutMs;
    this.defaultTimeoutMs = Math.min(
      options.defaultTimeoutMs ?? SANDBOX_LIMITS.defaultTimeoutMs,
      this.maxTimeoutMs,
    );
    this.shares = new FairShares(maxJobs, this.maxWaiting);
    for (let i = 0; i < maxJobs; i++) this.slots.push({ worker: undefined });
    this.free.push(...this.slots);
  }

  /** Runs now (for metrics). */
  get activeJobs(): number {
    return this.running;
  }

  /** Runs waiting for a thread now (for metrics). */
  get waitingJobs(): number {
    return this.waiting.length;
  }

  /** Threads terminated from outside at the time limit so far (for metrics). */
  get terminatedWorkers(): number {
    return this.terminated;
  }

  /**
   * Runs `request.entry` over `request.files` in a fresh QuickJS context on a sandbox thread.
   * Everything the program does, including breaking a limit, is answered as an ExecResult.
   * @throws DomainError DEGRADED_MODE when `maxJobs` run and `maxWaiting` wait already;
   *   an Error once the sandbox is closed.
   */
  async exec(request: ExecRequest, share?: SandboxShare): Promise<ExecResult> {
    if (this.closed) throw new Error('The sandbox is closed.');
    let checked: ReturnType<typeof checkRequest>;
    try {
      checked = checkRequest(request, SANDBOX_LIMITS);
    } catch (error) {
      if (error instanceof RequestRefused) return refusedResult(error.message);
      throw error;
    }
    const requested = request.timeoutMs ?? this.defaultTimeoutMs;
    const timeoutMs = Math.max(1, Math.min(Math.floor(requested), this.maxTimeoutMs));
    if (share && this.busyRuns.has(share.run)) {
      throw new DomainError(
        'CONFLICT',
        'A program of this run is already running: a run has one sandbox.exec at a time.',
        { run_id: share.run },
        { retryable: true, next: 'Wait for that call to answer, then call sandbox.exec again.' },
      );
    }
    if (share) this.busyRuns.add(share.run);
    try {
      const slot = await this.acquire(share?.owner);
      try {
        return await this.runInSlot(slot, checked, timeoutMs);
      } finally {
        this.release(slot, share?.owner);
      }
    } finally {
      if (share) this.busyRuns.delete(share.run);
    }
  }

  /** Terminates every thread; waiting and later runs are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.fail(new Error('The sandbox is closed.'));
    await Promise.all(
      this.slots.map(async (slot) => {
        const worker = await slot.worker?.catch(() => undefined);
        slot.worker = undefined;
        await worker?.terminate();
      }),
    );
  }

  private async runInSlot(slot: Slot, request: Omit<RunJob, 'deadline' | 'limits'>, timeoutMs: number) {
    slot.worker ??= this.startWorker();
    let worker: Worker;
    try {
      worker = await slot.worker;
    } catch (error) {
      slot.worker = undefined;
      return refusedResult(`the engine could not start (${String(error)}).`);
    }
    const output = allocateOutput(SANDBOX_LIMITS.outputBytes);
    const job: RunJob = {
      ...request,
      deadline: Date.now() + timeoutMs,
      limits: runLimits(this.config.memoryBytes, this.stackBytes),
    };
    const started = performance.now();
    const ending = await this.dispatch(worker, { job, output }, timeoutMs + SANDBOX_LIMITS.killGraceMs);
    if (ending.kind !== 'outcome') {
      // A thread killed or dead mid-run is never reused: its engine stopped in the middle of a call.
      if (ending.kind === 'killed') this.terminated++;
      await worker.terminate();
      slot.worker = this.closed ? undefined : this.startWorker();
    }
    const timeMs = Math.round(performance.now() - started);
    if (ending.kind === 'crashed')
      return refusedResult(`the engine stopped (${String(ending.error)}).`, timeMs);
    if (ending.kind === 'killed') {
      new OutputWriter(output).write('stderr', `sandbox: time limit of ${timeoutMs} ms exceeded\n`);
    }
    const outcome: RunOutcome =
      ending.kind === 'outcome'
        ? ending.outcome
        : {
            exitCode: EXIT.TIMEOUT,
            limit: 'TIME',
            memoryBytes: 0,
            changed: [],
            deleted: [],
            engineBroken: true,
          };
    return {
      exitCode: outcome.exitCode,
      ...readOutput(output),
      timeMs,
      memoryBytes: outcome.memoryBytes,
      changed: outcome.changed,
      deleted: outcome.deleted,
      ...(outcome.limit ? { limit: outcome.limit } : {}),
    };
  }

  /** Posts one job and waits for its outcome, the thread's death, or the kill deadline. */
  private dispatch(worker: Worker, message: WorkerJob, killAfterMs: number): Promise<Ending> {
    return new Promise<Ending>((resolve) => {
      const finish = (ending: Ending): void => {
        clearTimeout(timer);
        worker.off('message', onMessage);
        worker.off('error', onError);
        worker.off('exit', onExit);
        resolve(ending);
      };
      const onMessage = (reply: WorkerMessage): void => {
        if ('outcome' in reply) finish({ kind: 'outcome', outcome: reply.outcome });
      };
      const onError = (error: unknown): void => finish({ kind: 'crashed', error });
      const onExit = (code: number): void =>
        finish({ kind: 'crashed', error: new Error(`thread exit ${code}`) });
      const timer = setTimeout(() => finish({ kind: 'killed' }), killAfterMs);
      worker.on('message', onMessage);
      worker.on('error', onError);
      worker.on('exit', onExit);
      worker.postMessage(message);
    });
  }

  /** A new sandbox thread, resolved once its engine is built. */
  private startWorker(): Promise<Worker> {
    const started = new Promise<Worker>((resolve, reject) => {
      const worker = new Worker(WORKER_ENTRY, {
        workerData: this.config,
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB, stackSizeMb: SANDBOX_LIMITS.workerStackMb },
      });
      // An idle thread must neither keep the process alive nor crash it with an unheard 'error'.
      worker.unref();
      worker.on('error', () => {});
      const onExit = (code: number) =>
        reject(new Error(`The sandbox thread exited (${code}) while starting.`));
      worker.once('exit', onExit);
      worker.once('message', (reply: WorkerMessage) => {
        worker.off('exit', onExit);
        if ('ready' in reply) resolve(worker);
        else reject(new Error('The sandbox thread answered before it was ready.'));
      });
    });
    // A replacement started in the background may fail before anyone awaits it.
    started.catch(() => {});
    return started;
  }

  /** Resolves with a slot once one is free within the owner's share; the caller must release it. */
  private async acquire(tenant: string | undefined): Promise<Slot> {
    // Taken synchronously, so a burst of calls can never put more than maxJobs in flight.
    if (this.shares.mayStart(tenant) && this.free.length > 0) {
      const slot = this.free.pop() as Slot;
      this.started(tenant);
      return slot;
    }
    if (this.shares.lineFull(tenant)) {
      throw new DomainError(
        'DEGRADED_MODE',
        `Your programs use your share of the sandbox (${this.shares.runningCap} running, ${this.shares.waitingCap} waiting); retry in ${RETRY_AFTER_SECONDS} seconds.`,
        { retry_after_seconds: RETRY_AFTER_SECONDS, share: 'OWNER' },
      );
    }
    if (this.waiting.length >= this.maxWaiting) {
      throw new DomainError(
        'DEGRADED_MODE',
        `The sandbox is at capacity; retry in ${RETRY_AFTER_SECONDS} seconds.`,
        { retry_after_seconds: RETRY_AFTER_SECONDS, share: 'INSTANCE' },
      );
    }
    this.shares.queued(tenant);
    return new Promise<Slot>((resolve, reject) => {
      this.waiting.push({ tenant, start: resolve, fail: reject });
    });
  }

  private started(tenant: string | undefined): void {
    this.running++;
    this.shares.started(tenant);
  }

  /** Frees the slot, then hands free slots to the first waiting runs within their owners' shares. */
  private release(slot: Slot, tenant: string | undefined): void {
    this.running--;
    this.shares.finished(tenant);
    this.free.push(slot);
    while (this.free.length > 0) {
      const next = this.shares.takeNext(this.waiting);
      if (!next) break;
      this.started(next.tenant);
      next.start(this.free.pop() as Slot);
    }
  }
}
