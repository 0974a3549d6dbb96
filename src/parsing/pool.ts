/**
 * The bounded parser pool (DESIGN.md convention 11). Each job runs in a worker thread with a
 * heap limit and a time limit, so a hostile body fails its own job and never the process. A short,
 * bounded line of waiting jobs absorbs bursts; past it the caller is told at once (ParserBusy)
 * and can retry, which keeps latency honest under load.
 */
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
// sharp must be loaded by the main thread before worker threads start: on glibc Linux its shared
// libraries would otherwise be unloaded when the first thread that used them exits.
import 'sharp';
import {
  type ExtractedJson,
  type ExtractedTable,
  type ParsedDocument,
  type ParseInput,
  ParseRefusal,
  type Parser,
  ParserBusy,
} from './types.ts';
import type { ParserTask, TaskOutcome, TaskValue } from './worker.ts';

export interface ParserPoolOptions {
  /** Jobs that may run at once (one thread each). Default 2. */
  maxJobs?: number;
  /**
   * Jobs that may wait for a free thread; beyond running plus waiting, calls are refused at once
   * with ParserBusy. Default 0: no waiting at all.
   */
  maxWaiting?: number;
  /** Wall-clock limit per job, including thread start-up; over it the job fails with PARSE_TIMEOUT. Default 30 000. */
  timeoutMs?: number;
  /** Heap limit of each parser thread (V8 old generation), in MB; at least 64, below which a thread cannot start. Default 512. */
  maxMemoryMb?: number;
}

const WORKER_ENTRY = fileURLToPath(new URL('./worker-entry.mjs', import.meta.url));
const MIN_MEMORY_MB = 64;
/** Threads beyond the first stay warm this long after their last job. */
const IDLE_TIMEOUT_MS = 60_000;

/** A thread that died (out of memory, crashed) surfaces as one of these from piscina. */
const isWorkerDeath = (error: unknown): boolean =>
  error instanceof Error &&
  (/^ERR_WORKER_/.test(String((error as { code?: unknown }).code ?? '')) ||
    /worker.*(exit|terminat)/i.test(error.message));

export class ParserPool implements Parser {
  private readonly pool: Piscina<ParserTask, TaskOutcome>;
  private readonly maxJobs: number;
  private readonly timeoutMs: number;
  private readonly maxWaiting: number;
  private running = 0;
  /** Jobs waiting for a thread, first come first served; each is started by the job it follows. */
  private readonly waiting: Array<() => void> = [];
  private closed = false;

  constructor(options: ParserPoolOptions = {}) {
    this.maxJobs = Math.max(1, Math.floor(options.maxJobs ?? 2));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.maxWaiting = Math.max(0, Math.floor(options.maxWaiting ?? 0));
    this.pool = new Piscina<ParserTask, TaskOutcome>({
      filename: WORKER_ENTRY,
      minThreads: 1,
      maxThreads: this.maxJobs,
      // Our own gate admits at most maxJobs; piscina only holds a task while a thread starts.
      maxQueue: this.maxJobs,
      idleTimeout: IDLE_TIMEOUT_MS,
      resourceLimits: { maxOldGenerationSizeMb: Math.max(MIN_MEMORY_MB, options.maxMemoryMb ?? 512) },
    });
    // A thread dying is reported per job; without a listener piscina would rethrow it here.
    this.pool.on('error', () => {});
  }

  /** Jobs running now (for metrics). */
  get activeJobs(): number {
    return this.running;
  }

  /** Jobs waiting for a thread now (for metrics). */
  get waitingJobs(): number {
    return this.waiting.length;
  }

  /** @throws ParserBusy at capacity; ParseRefusal for unsupported, oversized, unreadable or slow bodies. */
  parse(input: ParseInput): Promise<ParsedDocument> {
    return this.run({ op: 'parse', input }) as Promise<ParsedDocument>;
  }

  /** HTML tables as rows of cells; [] for other formats. @throws as parse. */
  extractTables(input: ParseInput): Promise<ExtractedTable[]> {
    return this.run({ op: 'tables', input }) as Promise<ExtractedTable[]>;
  }

  /** The JSON body, or an HTML body's JSON-LD and embedded JSON scripts. @throws as parse. */
  extractJson(input: ParseInput): Promise<ExtractedJson[]> {
    return this.run({ op: 'json', input }) as Promise<ExtractedJson[]>;
  }

  /** Stops the threads once running jobs end; later calls are refused. */
  async close(): Promise<void> {
    this.closed = true;
    for (const release of this.waiting.splice(0)) release();
    await this.pool.close();
  }

  private async run(task: ParserTask): Promise<TaskValue> {
    if (this.closed) throw new Error('The parser pool is closed.');
    // Counted synchronously, so a burst of calls can never put more than maxJobs in flight.
    if (this.running >= this.maxJobs) {
      if (this.waiting.length >= this.maxWaiting) throw new ParserBusy();
      // The finishing job hands its slot over directly, so `running` never dips below the line.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (this.closed) throw new Error('The parser pool is closed.');
    } else {
      this.running++;
    }
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), this.timeoutMs);
    try {
      const outcome = await this.pool.run(task, { signal: abort.signal });
      if (outcome.ok) return outcome.value;
      const refusal = new ParseRefusal(outcome.reason, outcome.message, outcome.details);
      if (outcome.cause) refusal.cause = outcome.cause;
      throw refusal;
    } catch (error) {
      if (error instanceof ParseRefusal) throw error;
      if (abort.signal.aborted) {
        throw new ParseRefusal('PARSE_TIMEOUT', `Parsing took longer than ${this.timeoutMs} ms.`, {
          timeout_ms: this.timeoutMs,
        });
      }
      if (isWorkerDeath(error)) {
        const refusal = new ParseRefusal(
          'UNREADABLE_CONTENT',
          'The parser stopped while reading the content.',
          {},
        );
        refusal.cause = error;
        throw refusal;
      }
      throw error;
    } finally {
      clearTimeout(timer);
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
