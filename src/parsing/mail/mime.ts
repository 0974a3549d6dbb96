/**
 * A raw message read with mailparser's streaming MailParser: the headers, the text and HTML parts,
 * and each attachment as metadata only (its bytes hashed and counted as they stream past, then
 * dropped), plus the header readers parseMail takes the fields out with.
 */
import { createHash } from 'node:crypto';
import {
  type AttachmentStream,
  type HeaderLines,
  type Headers,
  type HeaderValue,
  MailParser,
  type MessageText,
} from 'mailparser';
import { type MailAttachment, MailRefused } from './types.ts';

/** What MailParser gives for one message, attachments already reduced to metadata. */
export interface MimeMessage {
  headers: Headers;
  headerLines: HeaderLines;
  text: string | null;
  html: string | null;
  attachments: MailAttachment[];
}

const malformed = (error: unknown): MailRefused =>
  new MailRefused(
    'MALFORMED',
    `The message could not be parsed as MIME: ${error instanceof Error ? error.message : String(error)}`.slice(
      0,
      300,
    ),
  );

/** Streams the message through MailParser, hashing and counting each attachment and keeping none of it. */
export function readMime(raw: Buffer): Promise<MimeMessage> {
  return new Promise((resolve, reject) => {
    const message: MimeMessage = {
      headers: new Map(),
      headerLines: [],
      text: null,
      html: null,
      attachments: [],
    };
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      reject(malformed(error));
    };
    const parser = new MailParser({
      // Cairn reads the HTML itself (html.ts); mailparser need not render or linkify anything.
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipTextLinks: true,
      skipImageLinks: true,
      // The SHA-256 is taken here as the bytes stream past; mailparser's own (MD5) is not needed.
      checksumAlgo: false,
    });
    parser.on('headers', (headers: Headers) => {
      message.headers = headers;
    });
    parser.on('headerLines', (lines: HeaderLines) => {
      message.headerLines = lines;
    });
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type === 'text') {
        message.text = typeof data.text === 'string' ? data.text : null;
        message.html = typeof data.html === 'string' ? data.html : null;
        return;
      }
      const record: MailAttachment = {
        name: data.filename ?? null,
        content_type: data.contentType,
        size: 0,
        sha256: null,
      };
      message.attachments.push(record);
      const hash = createHash('sha256');
      data.content.on('data', (chunk: Buffer) => {
        hash.update(chunk);
        record.size += chunk.length;
      });
      data.content.once('end', () => {
        record.sha256 = hash.digest('hex');
        data.release?.();
      });
      data.content.once('error', fail);
    });
    parser.once('error', fail);
    parser.once('end', () => {
      if (settled) return;
      settled = true;
      resolve(message);
    });
    parser.end(raw);
  });
}

/** The first value of a header as its raw text (unfolded), or null. */
export function headerLineValue(lines: HeaderLines, key: string): string | null {
  const line = lines.find((candidate) => candidate.key === key)?.line;
  if (line === undefined) return null;
  const colon = line.indexOf(':');
  return colon === -1 ? null : line.slice(colon + 1).trim();
}

/** An address header (From, To) as text; several To headers are joined. */
export function addressText(value: HeaderValue | undefined): string | null {
  if (value === undefined) return null;
  const text = (Array.isArray(value) ? value : [value])
    .map((entry) => (typeof entry === 'object' && entry !== null && 'text' in entry ? entry.text : ''))
    .filter((entry) => entry !== '')
    .join(', ');
  return text || null;
}

export const stringHeader = (value: HeaderValue | undefined): string | null =>
  typeof value === 'string' ? value : null;
