import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { CURSOR_MAX_CHARS } from '../../../kernel/cursor.ts';
import { base64Chars, base64Field, textField } from '../../../kernel/payload.ts';
import { IMPORT_LIMITS } from '../../../parsing/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import {
  importFileArgs,
  importFileRequest,
  ONE_FILE_MESSAGE,
  presentImport,
  READING_LIMITS,
  sendsOneFile,
} from '../../reading/index.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import type { CampaignDoorServices } from './context.ts';

const tags = ['research'];
const L = IMPORT_LIMITS;
const evidenceId = idOf('evd', 'evidence');

/** base64 of the largest file, plus room for the other fields. */
const IMPORT_BODY_BYTES = base64Chars(L.fileBytes) + 64 * 1024;

/**
 * The tool's file arguments, with the file itself as payload fields: a body over 1 MiB is
 * decoded in a parser thread, which hands the route the file's bytes (issue 40 item 3).
 */
const importBody = z
  .object({
    ...importFileArgs,
    data_base64: base64Field(L.fileBytes)
      .optional()
      .describe('The file, base64 (standard alphabet, no line breaks); or send text instead.'),
    text: textField(L.fileBytes)
      .optional()
      .describe('The file as text (a text file, log, HTML or JSON SBOM); or send data_base64 instead.'),
    task_id: idOf('task', 'task').optional(),
    campaign_id: idOf('cmp', 'campaign').optional(),
  })
  .strict()
  .refine(sendsOneFile, { message: ONE_FILE_MESSAGE, path: ['data_base64'] });

const op = defineOwnerOperation<CampaignDoorServices>();

/**
 * Security research for a person signed in to the console, or a script with an owner API token
 * (SPEC "Security research"): imports, reading what was imported, and the task choices of a
 * campaign (the import form's task select). Inside the owner API scope, which resolved the
 * owner and accepts only JSON bodies.
 */
export const researchOperations = [
  op({
    method: 'GET',
    path: '/v1/research/evidence/:evidence_id/preview',
    tags,
    summary: 'The text of one page of evidence, with the page count',
    params: z.object({ evidence_id: evidenceId }).strict(),
    query: z
      .object({
        page: z.coerce
          .number()
          .int()
          .min(READING_LIMITS.previewPage.min)
          .max(READING_LIMITS.previewPage.max)
          .default(READING_LIMITS.previewPage.min),
      })
      .strict(),
    run: async (ctx, { ownerId, params, query }) =>
      ctx.ownerEvidence.preview(ownerId, params.evidence_id, query.page),
  }),
  op({
    method: 'POST',
    path: '/v1/research/evidence/:evidence_id/locate',
    tags,
    summary: "Find a quote in evidence (evidence_locate's matcher)",
    params: z.object({ evidence_id: evidenceId }).strict(),
    body: z
      .object({
        quote: z.string().min(1).max(READING_LIMITS.read.quoteChars),
        page: z
          .number()
          .int()
          .min(READING_LIMITS.previewPage.min)
          .max(READING_LIMITS.previewPage.max)
          .optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.ownerEvidence.locate(ownerId, params.evidence_id, body.quote, body.page),
  }),
  op({
    method: 'GET',
    path: '/v1/research/campaigns/:campaign_id/task-choices',
    tags,
    summary: "The campaign's tasks as lightweight choices (id, title, status), newest first",
    params: z.object({ campaign_id: idOf('cmp', 'campaign') }).strict(),
    query: z
      .object({
        cursor: z.string().min(1).max(CURSOR_MAX_CHARS).optional(),
        limit: z.coerce
          .number()
          .int()
          .min(CAMPAIGN_LIMITS.taskChoices.min)
          .max(CAMPAIGN_LIMITS.taskChoices.max)
          .default(CAMPAIGN_LIMITS.taskChoices.default),
      })
      .strict(),
    run: async (ctx, { ownerId, params, query }) =>
      ctx.campaigns.taskChoices(ownerId, params.campaign_id, query, ctx.secret),
  }),
  op({
    method: 'POST',
    path: '/v1/research/imports',
    tags,
    summary: 'Import a file as evidence (UNVERIFIED for authenticity); returns 201',
    body: importBody,
    status: 201,
    payload: { base64: ['data_base64'], text: ['text'] },
    bodyLimit: IMPORT_BODY_BYTES,
    run: async (ctx, { ownerId, body }) => {
      const b = body;
      const { evidence, document } = await ctx.imports.importFile({
        importer: { ownerId: ownerId },
        ...importFileRequest({
          format: b.format,
          title: b.title,
          sourceDate: b.source_date,
          authorized: b.authorized,
          sourceUrl: b.source_url,
          dataBase64: b.data_base64,
          text: b.text,
          ocr: b.ocr,
        }),
        campaignId: b.campaign_id,
        taskId: b.task_id,
      });
      const base = `/v1/research/evidence/${evidence.id}`;
      return {
        evidence_id: evidence.id,
        ...presentImport(evidence, document),
        campaign_id: evidence.campaignId,
        task_id: evidence.taskId,
        transformations: evidence.transformations,
        next_steps: [
          { action: 'Read a page of its text', method: 'GET', path: `${base}/preview?page=1` },
          { action: 'Find a quote in it', method: 'POST', path: `${base}/locate`, body: { quote: '…' } },
          { action: 'Download the exact bytes', method: 'GET', path: `${base}/original` },
          ...(evidence.campaignId
            ? [
                {
                  action:
                    'Members of the campaign can cite it now: evidence_get and evidence_locate with this evidence_id, as its visibility mode allows.',
                  tool: 'evidence_get',
                  arguments: { evidence_id: evidence.id },
                },
              ]
            : []),
        ],
      };
    },
  }),
  op({
    method: 'GET',
    path: '/v1/research/evidence/:evidence_id/original',
    tags,
    summary: 'The exact bytes, as an attachment (never rendered inline)',
    params: z.object({ evidence_id: evidenceId }).strict(),
    run: async (ctx, { ownerId, params }, { reply }) => {
      const { bytes, contentType, filename } = await ctx.ownerEvidence.original(ownerId, params.evidence_id);
      // Untrusted bytes: downloaded, never sniffed, and sandboxed should a browser open them anyway.
      return reply
        .header('content-type', contentType)
        .header('content-disposition', `attachment; filename="${filename}"`)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "sandbox; default-src 'none'")
        .send(bytes);
    },
  }),
];
