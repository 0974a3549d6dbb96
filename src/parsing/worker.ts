/**
 * The code that runs inside a parser thread. Results and failures both come back as plain
 * data: errors do not keep their class across a thread boundary, so a ParseRefusal is sent as
 * its fields and rebuilt by the pool.
 */
import { extractBodyJson, extractBodyTables, parseBody } from './dispatch.ts';
import { runImport } from './import.ts';
import type { ImportInput, ImportOutcome } from './import-types.ts';
import type { MailParseOutcome, ProcessedMailInput } from './mail-types.ts';
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
  | { op: 'processedMail'; input: ProcessedMailInput };

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
  | MailParseOutcome;

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
      return runImport(task.input);
    case 'mail': {
      // Loaded on first use, as pdf.js is: a thread that never reads mail never loads mailparser.
      const { runMail } = await import('./mail.ts');
      return runMail(task.input);
    }
    case 'processedMail': {
      const { runProcessedMail } = await import('./mail.ts');
      return runProcessedMail(task.input);
    }
  }
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
