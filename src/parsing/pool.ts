/**
 * The bounded parser pool (DESIGN.md convention 11). Each job (parsing a body, locating a quote,
 * diffing two texts) runs in a worker thread with a heap limit and a time limit, so hostile input
 * fails its own job and never the process. A short, bounded line of waiting jobs absorbs bursts;
 * past it, or when the line ahead would take too long, the caller is told at once (ParserBusy) and
 * can retry, which keeps latency honest under load.
 */
import { fileURLToPath } from 'node:url';
import { MessageChannel } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { Admission } from './admission.ts';
import { closedError, failureOf } from './pool-failures.ts';
// sharp must be loaded by the main thread before worker threads start: on glibc Linux its shared
// libraries would otherwise be unloaded when the first thread that used them exits.
import 'sharp';
import type { PayloadFields } from '../kernel/base64.ts';
import { currentTenant } from '../kernel/tenant.ts';
import { type ImportInput, type ImportOutcome, importRefusalOf } from './import/types.ts';
import { BodyFieldRefused, type BodyOutcome, bodyParseError, PrototypeKeyRefused } from './json-body.ts';
import { MAIL_PARSE_LIMITS } from './mail/limits.ts';
import {
  type MailParseOutcome,
  MailRefused,
  mailRefusalOf,
  type ParsedMail,
  type ProcessedMailInput,
} from './mail/types.ts';
import type { NearMiss } from './near-miss.ts';
import {
  type DiffInput,
  type ExtractedJson,
  type ExtractedTable,
  type LocateAllInput,
  type LocateInput,
  type ParsedDocument,
  type ParseInput,
  ParseRefusal,
  type Parser,
  type QuoteMatch,
  type TextDiff,
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
  /**
   * The longest wait for a thread a job is let in line for, in ms. Default 5 000. Decided at the
   * door from how long recent jobs ran: a job that would wait longer is refused at once with
   * ParserBusy. One that was let in but still waits at twice this (the estimate was wrong: slow
   * jobs ahead) is refused then, never started.
   */
  maxWaitMs?: number;
  /** Wall-clock limit per job, including thread start-up; over it the job fails with PARSE_TIMEOUT. Default 30 000. */
  timeoutMs?: number;
  /**
   * The limit for markup and text (HTML, XHTML, plain text, JSON, and every job that is not a
   * PDF, an image or an import, which may need OCR): their parse is linear once nesting is
   * bounded, so a job running this long was built to be costly (issue 40). Default 10 000,
   * never above timeoutMs.
   */
  markupTimeoutMs?: number;
  /** Heap limit of each parser thread (V8 old generation), in MB; at least 64, below which a thread cannot start. Default 512. */
  maxMemoryMb?: number;
}

const WORKER_ENTRY = fileURLToPath(new URL('./worker-entry.cjs', import.meta.url));
/** Modules runModule may load: Cairn's own sources, nothing from elsewhere. */
const SOURCE_ROOT = new URL('../', import.meta.url).href;
const MIN_MEMORY_MB = 64;
/** Threads beyond the first stay warm this long after their last job. */
const IDLE_TIMEOUT_MS = 60_000;
/** How long a thread may take to start on a job before the job's time limit runs anyway. */
const THREAD_START_GRACE_MS = 30_000;

export class ParserPool implements Parser {
  private readonly pool: Piscina<ParserTask, TaskOutcome>;
  private readonly maxJobs: number;
  private readonly timeoutMs: number;
  private readonly markupTimeoutMs: number;
  /** Who runs now and who waits: at most maxJobs at once, fair shares per tenant (admission.ts). */
  private readonly gate: Admission;
  private closed = false;

  constructor(options: ParserPoolOptions = {}) {
    this.maxJobs = Math.max(1, Math.floor(options.maxJobs ?? 2));
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.markupTimeoutMs = Math.min(this.timeoutMs, options.markupTimeoutMs ?? 10_000);
    this.gate = new Admission(
      this.maxJobs,
      Math.max(0, Math.floor(options.maxWaiting ?? 0)),
      Math.max(0, options.maxWaitMs ?? 5_000),
    );
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
    return this.gate.running;
  }

  /** Jobs waiting for a thread now (for metrics). */
  get waitingJobs(): number {
    return this.gate.waitingJobs;
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

  /** Finds a quote in a stored text (see locateQuote); null when absent. @throws ParserBusy; ParseRefusal PARSE_TIMEOUT or UNREADABLE_CONTENT. */
  locate(input: LocateInput): Promise<QuoteMatch | null> {
    return this.run({ op: 'locate', input }) as Promise<QuoteMatch | null>;
  }

  /** Where the text says almost what an absent quote says (after locate found nothing). @throws as locate. */
  nearMiss(input: LocateInput): Promise<NearMiss | null> {
    return this.run({ op: 'nearMiss', input }) as Promise<NearMiss | null>;
  }

  /** Finds each quote in one stored text, in order; null where absent. @throws as locate. */
  locateAll(input: LocateAllInput): Promise<Array<QuoteMatch | null>> {
    return this.run({ op: 'locateAll', input }) as Promise<Array<QuoteMatch | null>>;
  }

  /** A line diff of two stored texts (see diffTexts). @throws as locate. */
  diff(input: DiffInput): Promise<TextDiff> {
    return this.run({ op: 'diff', input }) as Promise<TextDiff>;
  }

  /**
   * Reads a research import (see parseImport). Content refusals, a timeout and a parser that died
   * on the file come back as `{ok: false}` with an import refusal code.
   * @throws ParserBusy at capacity (DEGRADED_MODE), as every job; an Error when the pool is closed.
   */
  async parseImport(input: ImportInput): Promise<ImportOutcome> {
    try {
      return (await this.run({ op: 'import', input })) as ImportOutcome;
    } catch (error) {
      if (error instanceof ParseRefusal) return { ok: false, refusal: importRefusalOf(error) };
      throw error;
    }
  }

  /**
   * Reads a raw RFC 5322 message (see parseMail in mail.ts) into header fields, sanitised text,
   * attachment metadata (bytes hashed and dropped in the thread) and instruction flags.
   * @throws MailRefused (`refusal.code`): TOO_LARGE over MAIL_PARSE_LIMITS.deliveryBytes (checked
   *   here, no job started); MALFORMED when the message is empty, has no header field, or the
   *   parser failed or its thread died on it; PARSE_TIMEOUT over the pool's time limit.
   *   ParserBusy at capacity, as every job (retry later; not the message's fault). An Error when
   *   the pool is closed.
   */
  async parseMail(raw: Uint8Array): Promise<ParsedMail> {
    const limit = MAIL_PARSE_LIMITS.deliveryBytes;
    if (raw.length > limit) {
      throw new MailRefused(
        'TOO_LARGE',
        `The message is ${raw.length} bytes; Cairn accepts mail of up to ${limit} bytes (2 MiB).`,
        { bytes: raw.length, limit },
      );
    }
    // A Buffer may be a view on a larger shared block; only its own bytes cross to the thread.
    const bytes =
      raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength ? raw : Uint8Array.from(raw);
    return this.runMailJob({ op: 'mail', input: bytes });
  }

  /**
   * A provider's already-parsed message (see parseProcessedMail in mail.ts) read the same way:
   * its HTML, when it has no text, is sanitised in a thread like any untrusted markup.
   * @throws MailRefused MALFORMED or PARSE_TIMEOUT only from the pool (a content refusal never);
   *   otherwise as parseMail.
   */
  parseProcessedMail(mail: ProcessedMailInput): Promise<ParsedMail> {
    return this.runMailJob({ op: 'processedMail', input: mail });
  }

  /**
   * Reads a large JSON body in a thread (see decodeJsonBody in json-body.ts), so the event loop
   * never parses megabytes (issue 40 item 3). Its payload fields arrive as bytes in shared
   * memory, as the body best does (SharedArrayBuffer): neither crosses between threads by copy.
   * @throws Fastify's body errors and PrototypeKeyRefused, as the main thread's parser does;
   *   BodyFieldRefused for a payload field that fails its check; ParserBusy at capacity;
   *   ParseRefusal when the job fails (PARSE_TIMEOUT, UNREADABLE_CONTENT).
   */
  async decodeJsonBody(bytes: Uint8Array, fields: PayloadFields): Promise<unknown> {
    const outcome = (await this.run({ op: 'body', input: { bytes, fields } })) as BodyOutcome;
    if (outcome.ok) return outcome.value;
    if (outcome.kind === 'syntax') throw bodyParseError(outcome.code);
    if (outcome.kind === 'prototype') throw new PrototypeKeyRefused(outcome.key, outcome.rpcId);
    throw new BodyFieldRefused(outcome.detail);
  }

  /**
   * Runs an area's pure function in a thread, with the pool's limits and the caller's fair share:
   * work that would hold the event loop (reading a zip of megabytes) but that the parsing layer
   * knows nothing of. `module` is the function's module (a file: URL inside src/), `name` its
   * export; input and result are plain data (structured clone).
   * @throws ParserBusy at capacity; ParseRefusal PARSE_TIMEOUT or UNREADABLE_CONTENT (the
   *   function threw: `cause` says what).
   */
  async runModule<T>(module: URL, name: string, input: unknown): Promise<T> {
    if (!module.href.startsWith(SOURCE_ROOT))
      throw new Error(`runModule loads only Cairn's sources, not ${module.href}`);
    return (await this.run({ op: 'module', input: { module: module.href, name, input } })) as T;
  }

  /** Stops the threads once running jobs end; waiting and later calls are refused. */
  async close(): Promise<void> {
    this.closed = true;
    this.gate.close(closedError);
    await this.pool.close();
  }

  /**
   * A mail job: the thread's refusal value, and the pool's own failures (time limit, a thread
   * that died), are thrown as one typed error, MailRefused.
   */
  private async runMailJob(task: ParserTask): Promise<ParsedMail> {
    let outcome: MailParseOutcome;
    try {
      outcome = (await this.run(task)) as MailParseOutcome;
    } catch (error) {
      if (!(error instanceof ParseRefusal)) throw error;
      const { code, message, details } = mailRefusalOf(error);
      const refused = new MailRefused(code, message, details);
      refused.cause = error;
      throw refused;
    }
    if (outcome.ok) return outcome.mail;
    const { code, message, details } = outcome.refusal;
    throw new MailRefused(code, message, details);
  }

  private async run(task: ParserTask): Promise<TaskValue> {
    const tenant = currentTenant();
    await this.gate.acquire(tenant, closedError);
    if (this.closed) {
      this.gate.release(tenant);
      throw closedError();
    }
    // The job's time limit starts once its thread starts on it: not while it waits for a slot,
    // nor while a new thread loads the parsers (seconds on a busy machine, and no fault of the
    // body). The thread says when it starts; one that never does is cut off after the grace too.
    const limitMs = this.limitFor(task);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      timer ??= setTimeout(() => abort.abort(), limitMs);
    };
    const { port1: onStart, port2: startPort } = new MessageChannel();
    onStart.once('message', arm);
    const grace = setTimeout(arm, THREAD_START_GRACE_MS);
    const started = performance.now();
    try {
      // The worker entry takes the port off before the task reaches its handler.
      const withPort = { ...task, started: startPort } as unknown as ParserTask;
      const outcome = await this.pool.run(withPort, { signal: abort.signal, transferList: [startPort] });
      if (outcome.ok) return outcome.value;
      const refusal = new ParseRefusal(outcome.reason, outcome.message, outcome.details);
      if (outcome.cause) refusal.cause = outcome.cause;
      throw refusal;
    } catch (error) {
      throw failureOf(error, { timedOut: abort.signal.aborted, limitMs, closed: this.closed });
    } finally {
      clearTimeout(timer);
      clearTimeout(grace);
      onStart.close();
      // A job cut off at its limit says what one hostile body cost, not what a job takes: counted
      // in, a few of them would keep newcomers out long after the pool is idle again (issue 40).
      if (!abort.signal.aborted) this.gate.ran(performance.now() - started);
      this.gate.release(tenant);
    }
  }

  /** The time limit of a job: the long one wherever OCR or a PDF may be read. */
  private limitFor(task: ParserTask): number {
    if (task.op === 'import') return this.timeoutMs;
    if (task.op === 'parse' || task.op === 'tables' || task.op === 'json') {
      // A body without a type is sniffed, and may turn out a PDF or an image.
      const type = task.input.contentType.toLowerCase();
      return /html|xml|text\/|json/.test(type) ? this.markupTimeoutMs : this.timeoutMs;
    }
    return this.markupTimeoutMs;
  }
}
