import { z } from 'zod';
import { defineTool } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { READING_LIMITS } from '../limits.ts';
import { presentCitation, presentEvidence, presentNearMiss, presentObservation } from '../present.ts';
import { evidenceIdArg, findArg, maxCharsArg, offsetArg, plainText } from '../schemas.ts';
import { READERS } from '../visibility.ts';
import { windowOf } from '../window.ts';
import type { ReadCtx } from './tool-context.ts';

/** Stored evidence: records, windows of text, citations and quote location. Never contacts a site. */

const evidenceView = defineTool({
  name: 'evidence_view',
  group: 'Read',
  description:
    'A window of the text of stored evidence, by offset or from the start of a page. Never contacts the site.',
  args: {
    evidence_id: evidenceIdArg,
    offset: offsetArg.optional(),
    max_chars: maxCharsArg.optional(),
    page: z.number().int().min(1).max(10_000).optional().describe('Start at this page (PDFs and images).'),
  },
  mutates: false,
  audience: READERS,
  handler: async (ctx: ReadCtx, input) => {
    const evidence = await ctx.services.reading.evidence(ctx.caller, input.evidenceId);
    let offset = input.offset ?? 0;
    if (input.page !== undefined) {
      const page = evidence.pages.find((p) => p.page === input.page);
      if (!page) {
        throw new DomainError('NOT_FOUND', `Evidence ${evidence.id} has no page ${input.page}.`, {
          evidence_id: evidence.id,
          pages: evidence.pages.length,
        });
      }
      offset = page.offset + (input.offset ?? 0);
    }
    const window = windowOf(evidence.text, { offset, maxChars: input.maxChars });
    return { evidence_id: evidence.id, observation: presentObservation(evidence, window) };
  },
});

const evidenceGet = defineTool({
  name: 'evidence_get',
  group: 'Campaigns',
  description:
    'A stored evidence record: citation, provenance, trust label, flags, reader, purpose and task; with include_text, a window of its text.',
  args: {
    evidence_id: evidenceIdArg,
    include_text: z.boolean().optional().describe('Include a window of the text (default false).'),
    offset: offsetArg.optional(),
    find: findArg.optional(),
    max_chars: maxCharsArg.optional(),
  },
  mutates: false,
  audience: READERS,
  handler: async (ctx: ReadCtx, input) => {
    if (!input.includeText) {
      return {
        evidence: presentEvidence(await ctx.services.reading.evidenceMeta(ctx.caller, input.evidenceId)),
      };
    }
    const evidence = await ctx.services.reading.evidence(ctx.caller, input.evidenceId);
    const window = windowOf(evidence.text, {
      offset: input.offset,
      maxChars: input.maxChars,
      find: input.find,
    });
    return {
      evidence: presentEvidence({ ...evidence, textLength: evidence.text.length }),
      observation: presentObservation(evidence, window),
    };
  },
});

const citationGet = defineTool({
  name: 'citation_get',
  group: 'Read',
  description:
    'The citation of stored evidence: canonical URL, retrieval time, HTTP status, body hash and transformations.',
  args: { evidence_id: evidenceIdArg },
  mutates: false,
  audience: READERS,
  handler: async (ctx: ReadCtx, input) => {
    const evidence = await ctx.services.reading.evidenceMeta(ctx.caller, input.evidenceId);
    return {
      evidence_id: evidence.id,
      title: evidence.title,
      provenance: evidence.provenance,
      citation: presentCitation(evidence),
    };
  },
});

const evidenceLocate = defineTool({
  name: 'evidence_locate',
  group: 'Read',
  description:
    'Find a quote in stored evidence: exactly first, then with whitespace, quotes, dashes and Unicode forms normalised. Returns offsets, page and the matched text.',
  args: {
    evidence_id: evidenceIdArg,
    quote: plainText(1, READING_LIMITS.read.quoteChars).describe('The text to find.'),
    page: z.number().int().min(1).max(10_000).optional().describe('Only search this page.'),
  },
  mutates: false,
  audience: READERS,
  handler: async (ctx: ReadCtx, input) => {
    const evidence = await ctx.services.reading.evidence(ctx.caller, input.evidenceId);
    if (input.page !== undefined && !evidence.pages.some((p) => p.page === input.page)) {
      throw new DomainError('NOT_FOUND', `Evidence ${evidence.id} has no page ${input.page}.`, {
        evidence_id: evidence.id,
        pages: evidence.pages.length,
      });
    }
    const found = await ctx.services.reading.text.locate(ctx.caller, evidence, input.quote, input.page);
    if (!found) {
      const near = await ctx.services.reading.text.nearMiss(ctx.caller, evidence, input.quote, input.page);
      return {
        evidence_id: evidence.id,
        found: false,
        match: null,
        near_miss: presentNearMiss(evidence.text, near),
      };
    }
    return {
      evidence_id: evidence.id,
      found: true,
      match: found.match,
      offset: found.offset,
      length: found.length,
      page: found.page,
      matched_text: evidence.text.slice(found.offset, found.offset + found.length),
      citation: presentCitation(evidence),
    };
  },
});

export { citationGet, evidenceGet, evidenceLocate, evidenceView };
