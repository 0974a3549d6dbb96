import { z } from 'zod';
import {
  BASE64_MESSAGE,
  BASE64_PATTERN,
  base64Chars,
  type Payload,
  payloadBytes,
} from '../../kernel/payload.ts';
import { plainLine } from '../../kernel/plain-text.ts';
import { IMPORT_FORMATS, IMPORT_LIMITS } from '../../parsing/index.ts';
import type { ImportRequest } from './imports.ts';
import { READING_LIMITS } from './limits.ts';

/**
 * The file arguments of a research import, one definition for both doors (SPEC "Security
 * research"): `POST /v1/research/imports` (a person) and `evidence_submit` (an agent). Same
 * names, same checks, same wording.
 */

const L = IMPORT_LIMITS;

export const importFileArgs = {
  format: z
    .enum(IMPORT_FORMATS)
    .optional()
    .describe('The file format; omitted, inferred from the bytes. A format the bytes contradict is refused.'),
  title: plainLine(1, 500).optional().describe('A title for the evidence (up to 500 characters).'),
  source_date: z
    .union([z.iso.date(), z.iso.datetime({ offset: true })])
    .optional()
    .describe('When the source itself was written or published: YYYY-MM-DD or an ISO 8601 time.'),
  authorized: z.boolean().optional().describe('Whether you had the right to obtain and share this file.'),
  source_url: z
    .url({ protocol: /^https?$/, message: 'an http(s) URL' })
    .max(READING_LIMITS.read.urlChars)
    .optional()
    .describe('Where the file came from (http or https); kept as its source, never fetched.'),
  data_base64: z
    .string()
    .max(base64Chars(L.fileBytes))
    .regex(BASE64_PATTERN, BASE64_MESSAGE)
    .optional()
    .describe('The file, base64 (standard alphabet, no line breaks); or send text instead.'),
  text: z
    .string()
    .max(L.fileBytes)
    .optional()
    .describe('The file as text (a text file, log, HTML or JSON SBOM); or send data_base64 instead.'),
  ocr: z.boolean().optional().describe('Recognise text in images and in PDF pages without text.'),
};

/** The wording of the one-file rule, where a schema states it (`refine`) and where code does. */
export const ONE_FILE_MESSAGE = 'send exactly one of data_base64 (any file) and text (a text file)';

/** Whether exactly one of the two ways to send a file was used. */
export function sendsOneFile(b: { data_base64?: Payload | undefined; text?: Payload | undefined }): boolean {
  return (b.data_base64 === undefined) !== (b.text === undefined);
}

/** The file arguments as the domain takes them (camelCase, as tools hand them over). */
export interface ImportFileInput {
  format?: ImportRequest['format'];
  title?: string | undefined;
  sourceDate?: string | undefined;
  authorized?: boolean | undefined;
  sourceUrl?: string | undefined;
  /** base64, or the bytes a large body's worker decoded it to (kernel/payload.ts). */
  dataBase64?: Payload | undefined;
  /** The text, or its UTF-8 bytes from a large body's worker. */
  text?: Payload | undefined;
  ocr?: boolean | undefined;
}

/** The file and its particulars as an ImportRequest takes them: `text` as UTF-8, else the decoded base64. */
export function importFileRequest(
  a: ImportFileInput,
): Pick<
  ImportRequest,
  'bytes' | 'contentType' | 'format' | 'ocr' | 'title' | 'sourceDate' | 'authorized' | 'sourceUrl'
> {
  return {
    bytes: a.text !== undefined ? payloadBytes(a.text, 'utf8') : payloadBytes(a.dataBase64 ?? '', 'base64'),
    contentType: '',
    format: a.format,
    ocr: a.ocr,
    title: a.title,
    sourceDate: a.sourceDate ? new Date(a.sourceDate) : undefined,
    authorized: a.authorized,
    sourceUrl: a.sourceUrl,
  };
}
