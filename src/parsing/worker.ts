/**
 * The code that runs inside a parser thread. Results and failures both come back as plain
 * data: errors do not keep their class across a thread boundary, so a ParseRefusal is sent as
 * its fields and rebuilt by the pool.
 */
import { extractBodyJson, extractBodyTables, parseBody } from './dispatch.ts';
import { runImport } from './import/import.ts';
import type { ImportInput, ImportOutcome } from './import/types.ts';
import { type BodyInput, type BodyOutcome, decodeJsonBody } from './json-body.ts';
import type { MailParseOutcome, ProcessedMailInput } from './mail/types.ts';
import { type NearMiss, nearestMiss } from './near-miss.ts';
import { locateQuote } from './quote-locate.ts';
import { diffTexts } from './text-diff.ts';
import {
  type DiffInput,
  type ExtractedJson,
  type ExtractedTable,
  type LocateAllInput,
  type LocateInput,
  type ParsedDocument,
  type ParseInput,
  ParseRefusal,
  type ParseRefusalReason,
  type QuoteMatch,
  type TextDiff,
} from './types.ts';

export type ParserTask =
  | { op: 'parse'; input: ParseInput }
  | { op: 'tables'; input: ParseInput }
  | { op: 'json'; input: ParseInput }
  | { op: 'locate'; input: LocateInput }
  | { op: 'nearMiss'; input: LocateInput }
  | { op: 'locateAll'; input: LocateAllInput }
  | { op: 'diff'; input: DiffInput }
  | { op: 'import'; input: ImportInput }
  | { op: 'mail'; input: Uint8Array }
  | { op: 'processedMail'; input: ProcessedMailInput }
  | { op: 'body'; input: BodyInput }
  | { op: 'module'; input: ModuleJob };

/** A pure function of an area's, run in a parser thread (see ParserPool.runModule). */
export interface ModuleJob {
  /** A file: URL of a module inside src/. */
  module: string;
  /** The exported function; it takes `input` and returns plain data. */
  name: string;
  input: unknown;
}

export type TaskValue =
  | ParsedDocument
  | ExtractedTable[]
  | ExtractedJson[]
  | QuoteMatch
  | NearMiss
  | null
  | Array<QuoteMatch | null>
  | TextDiff
  | ImportOutcome
  | MailParseOutcome
  | BodyOutcome;

export type TaskOutcome =
  | { ok: true; value: TaskValue }
  | {
      ok: false;
      reason: ParseRefusalReason;
      message: string;
      details: Record<string, unknown>;
      /** The unexpected error behind an UNREADABLE_CONTENT, for the caller's log only. */
      cause?: string;
    };

async function runTask(task: ParserTask): Promise<TaskValue> {
  switch (task.op) {
    case 'parse':
      return parseBody(task.input);
    case 'tables':
      return extractBodyTables(task.input);
    case 'json':
      return extractBodyJson(task.input);
    case 'locate': {
      const { text, quote, pages, page } = task.input;
      return locateQuote(text, quote, pages, page);
    }
    case 'nearMiss': {
      const { text, quote, pages, page } = task.input;
      return nearestMiss(text, quote, pages, page);
    }
    case 'locateAll': {
      const { text, quotes, pages } = task.input;
      return quotes.map((quote) => locateQuote(text, quote, pages));
    }
    case 'diff': {
      const { oldName, newName, oldText, newText } = task.input;
      return diffTexts(oldName, newName, oldText, newText);
    }
    case 'import':
      // Shared bytes (a large upload) are copied here, off the main thread: the parsers take
      // plain memory, and the sender of the bytes may still read them.
      return runImport({ ...task.input, bytes: unshared(task.input.bytes) });
    case 'mail': {
      // Loaded on first use, as pdf.js is: a thread that never reads mail never loads mailparser.
      const { runMail } = await import('./mail/mail.ts');
      return runMail(task.input);
    }
    case 'processedMail': {
      const { runProcessedMail } = await import('./mail/mail.ts');
      return runProcessedMail(task.input);
    }
    case 'body':
      return decodeJsonBody(task.input);
    case 'module': {
      const mod = (await import(task.input.module)) as Record<string, unknown>;
      const fn = mod[task.input.name];
      if (typeof fn !== 'function') throw new Error(`${task.input.name} is not a function of its module`);
      // Plain data by the job's contract; the pool's caller states its type.
      // Shared bytes (a large upload) as plain ones, as for imports: the function need not know.
      const input = task.input.input instanceof Uint8Array ? unshared(task.input.input) : task.input.input;
      return (await fn(input)) as TaskValue;
    }
  }
}

function unshared(bytes: Uint8Array): Uint8Array {
  return bytes.buffer instanceof SharedArrayBuffer ? new Uint8Array(bytes) : bytes;
}

/** Runs one task; never throws, so every failure reaches the pool with its reason intact. */
export default async function handleTask(task: ParserTask): Promise<TaskOutcome> {
  try {
    return { ok: true, value: await runTask(task) };
  } catch (error) {
    if (error instanceof ParseRefusal) {
      return { ok: false, reason: error.reason, message: error.message, details: error.details };
    }
    // Anything else is a parser library choking on hostile or broken input.
    return {
      ok: false,
      reason: 'UNREADABLE_CONTENT',
      message: 'The content could not be parsed.',
      details: {},
      cause:
        error instanceof Error
          ? `${error.name}: ${error.message}`.slice(0, 500)
          : String(error).slice(0, 500),
    };
  }
}
