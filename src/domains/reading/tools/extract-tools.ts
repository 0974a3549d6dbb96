import { z } from 'zod';
import { defineTool } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { resolvePointer } from '../json-pointer.ts';
import { READING_LIMITS } from '../limits.ts';
import { presentCitation, presentPolicy } from '../present.ts';
import {
  evidenceIdArg,
  purposeArg,
  purposeFor,
  sourceOf,
  taskIdArg,
  timestampArg,
  urlArg,
} from '../schemas.ts';
import type { EvidenceRecord } from '../types.ts';
import { READERS } from '../visibility.ts';
import type { ReadCtx } from './tool-context.ts';

/** Structured reads: tables, JSON and diffs, from stored evidence or a fresh read. */

/** The stored evidence named, or a fresh read of the URL (a read like fetch_text, with its own receipt). */
async function evidenceFor(
  ctx: ReadCtx,
  tool: string,
  input: {
    url?: string | undefined;
    evidenceId?: string | undefined;
    declaredPurpose?: string | undefined;
    taskId?: string | undefined;
  },
): Promise<EvidenceRecord> {
  const source = sourceOf(input);
  if ('evidenceId' in source) return ctx.services.reading.evidence(ctx.caller, source.evidenceId);
  const read = await ctx.services.reading.read(ctx.caller, {
    tool,
    url: source.url,
    declaredPurpose: purposeFor(input.declaredPurpose),
    taskId: input.taskId ?? null,
  });
  return read.evidence;
}

/** When extraction fails after a fresh read, the refusal still names the evidence that read stored. */
async function keepingEvidence<T>(evidence: EvidenceRecord, work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof DomainError) err.details.evidence_id = evidence.id;
    throw err;
  }
}

const sourceFields = {
  url: urlArg.optional(),
  evidence_id: evidenceIdArg.optional(),
  declared_purpose: purposeArg.optional().describe('Why you are reading this; required with url.'),
  task_id: taskIdArg.optional(),
};

/** Cuts a list of JSON-serialisable items to the published size, saying how many were left out. */
function bounded<T>(items: T[]): { items: T[]; truncated: boolean; omitted: number } {
  const kept: T[] = [];
  let size = 0;
  for (const item of items) {
    size += JSON.stringify(item)?.length ?? 0;
    if (size > READING_LIMITS.read.extractChars) break;
    kept.push(item);
  }
  return { items: kept, truncated: kept.length < items.length, omitted: items.length - kept.length };
}

const extractTable = defineTool({
  name: 'extract_table',
  group: 'Read',
  openWorld: true,
  checksOwnCredentials: ['url'],
  description:
    'Tables (caption, headers, rows of cell text) from stored evidence or a fresh read of a url. table_index picks one.',
  args: {
    ...sourceFields,
    table_index: z.number().int().min(0).max(199).optional().describe('Only this table (0-based).'),
  },
  mutates: false,
  audience: READERS,
  handler: async (ctx: ReadCtx, input) => {
    const evidence = await evidenceFor(ctx, 'extract_table', input);
    const tables = await keepingEvidence(
      evidence,
      ctx.services.reading.text.tables(ctx.caller, evidence, 'extract_table'),
    );
    const chosen =
      input.tableIndex === undefined ? tables : tables.filter((t) => t.index === input.tableIndex);
    if (input.tableIndex !== undefined && chosen.length === 0) {
      throw new DomainError('NOT_FOUND', `Evidence ${evidence.id} has no table ${input.tableIndex}.`, {
        evidence_id: evidence.id,
        table_count: tables.length,
      });
    }
    let rowBudget = READING_LIMITS.read.tableRows;
    const capped = chosen.map((t) => {
      const rows = t.rows.slice(0, Math.max(0, rowBudget));
      rowBudget -= rows.length;
      return { ...t, rows, rows_truncated: rows.length < t.rows.length };
    });
    const out = bounded(capped);
    return {
      evidence_id: evidence.id,
      citation: presentCitation(evidence),
      trust_label: evidence.trustLabel,
      table_count: tables.length,
      tables: out.items,
      truncated: out.truncated || capped.some((t) => t.rows_truncated),
    };
  },
});

const extractJson = defineTool({
  name: 'extract_json',
  group: 'Read',
  openWorld: true,
  checksOwnCredentials: ['url'],
  description:
    'JSON from stored evidence or a fresh read: the document itself when it is JSON, JSON-LD and embedded JSON scripts of HTML. pointer (RFC 6901) selects inside each value.',
  args: {
    ...sourceFields,
    pointer: z
      .string()
      .max(1_000)
      .regex(/^(\/.*)?$/, 'a JSON pointer is empty or starts with /')
      .optional()
      .describe('RFC 6901 JSON pointer, e.g. /items/0/name.'),
  },
  mutates: false,
  audience: READERS,
  handler: async (ctx: ReadCtx, input) => {
    const evidence = await evidenceFor(ctx, 'extract_json', input);
    const values = await keepingEvidence(
      evidence,
      ctx.services.reading.text.json(ctx.caller, evidence, 'extract_json'),
    );
    const selected = values.flatMap((v) => {
      if (input.pointer === undefined) return [v];
      const r = resolvePointer(v.value, input.pointer);
      return r.found ? [{ ...v, value: r.value }] : [];
    });
    const out = bounded(selected);
    return {
      evidence_id: evidence.id,
      citation: presentCitation(evidence),
      trust_label: evidence.trustLabel,
      found: values.length,
      pointer: input.pointer ?? null,
      values: out.items,
      truncated: out.truncated,
      omitted: out.omitted,
    };
  },
});

const diffSince = defineTool({
  name: 'diff_since',
  group: 'Read',
  openWorld: true,
  description:
    'What changed. With url: the latest stored copy against a fresh read, or, with since, the copy as of that time against the latest stored copy (no fresh read). With evidence_id: that copy against a fresh read.',
  args: {
    ...sourceFields,
    since: timestampArg.optional().describe('Compare the copy as of this time with the latest stored copy.'),
  },
  mutates: false,
  audience: READERS,
  handler: async (ctx: ReadCtx, input) => {
    const source = sourceOf(input);
    const reading = ctx.services.reading;
    let older: EvidenceRecord;
    let newer: EvidenceRecord;
    let fresh: { receipt_id: string } | null = null;
    if ('evidenceId' in source && input.since !== undefined) {
      throw new DomainError('VALIDATION_FAILED', 'since goes with url, not with evidence_id.', {
        detail: [{ loc: ['arguments', 'since'], msg: 'only with url', type: 'conflict' }],
      });
    }
    if ('url' in source && input.since !== undefined) {
      newer = await reading.latestCopy(ctx.caller, source.url);
      older = await reading.latestCopy(ctx.caller, source.url, {
        at: new Date(input.since),
        inclusive: true,
      });
    } else {
      older =
        'url' in source
          ? await reading.latestCopy(ctx.caller, source.url)
          : await reading.evidence(ctx.caller, source.evidenceId);
      const read = await reading.read(ctx.caller, {
        tool: 'diff_since',
        url: older.requestedUrl,
        declaredPurpose: purposeFor(input.declaredPurpose),
        taskId: input.taskId ?? null,
      });
      newer = read.evidence;
      fresh = { receipt_id: read.receipt.id };
    }
    const side = (e: EvidenceRecord) => ({
      evidence_id: e.id,
      retrieved_at: e.retrievedAt.toISOString(),
      body_hash: e.bodyHash,
      canonical_url: e.canonicalUrl,
    });
    return {
      status: 'COMPLETED',
      older: side(older),
      newer: side(newer),
      same_bytes: older.bodyHash === newer.bodyHash,
      ...(fresh
        ? {
            policy: presentPolicy({
              id: fresh.receipt_id,
              decision: 'ALLOW_ONCE',
              reasonCode: 'PUBLIC_READ',
            }),
          }
        : {}),
      diff: await reading.text.diff(ctx.caller, older, newer),
      trust_label: 'UNTRUSTED_TOOL_OBSERVATION',
    };
  },
});

export { diffSince, extractJson, extractTable };
