/**
 * Inbound mail (issue 18) → ParsedMail: the header fields a reader needs, the body as sanitised
 * text, and attachments as metadata only. Runs inside the parser pool (jobs `mail` and
 * `processedMail`); nothing here sends mail or touches the network.
 *
 * The raw message is read with mailparser's streaming MailParser rather than simpleParser:
 * simpleParser buffers every attachment and inlines `cid:` images into the HTML as data: URIs,
 * while here each attachment's bytes are hashed and counted as they stream past, then dropped.
 * mailparser's own HTML-to-text conversion is switched off: an HTML-only message is read by the
 * same sanitiser and extractor as a fetched page (html.ts), hidden content and all, and every
 * text goes through the same instruction-like-content detector as fetched text.
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
import { maskCairnCredentials } from '../../kernel/credential-scan.ts';
import { LIMITS } from '../../kernel/limits.ts';
import { parseHtml } from '../html/html.ts';
import { cleanTitle, stripInvisible } from '../html/invisible.ts';
import { detectInstructions } from '../instructions/instructions.ts';
import type { InstructionSpan } from '../types.ts';
import {
  MAIL_HEADER_MAX_CHARS,
  type MailAttachment,
  type MailParseOutcome,
  MailRefused,
  type ParsedMail,
  type ProcessedMailInput,
} from './types.ts';

const L = LIMITS.mailbox;
/** As instructions.ts: enough spans to show what a message does, never an unbounded list. */
const MAX_SPANS = 50;

/** A message's fields as read, before cleaning (shared by raw MIME and provider-parsed mail). */
interface MailFields {
  from: string | null;
  to: string | null;
  subject: string | null;
  /** Already an ISO timestamp, or null. */
  date: string | null;
  messageId: string | null;
  text: string | null;
  html: string | null;
  attachments: MailAttachment[];
}

/** The body as stored: text, whether it was cut, what was changed, and its instruction spans. */
interface Body {
  text: string;
  truncated: boolean;
  transformations: string[];
  spans: InstructionSpan[];
}

/** `text` cut at the stored-text limit, never between the two halves of a surrogate pair. */
function cap(text: string): { text: string; truncated: boolean } {
  if (text.length <= L.storedTextChars) return { text, truncated: false };
  let end = L.storedTextChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return { text: text.slice(0, end), truncated: true };
}

/** A text/plain body: newlines normalised, invisible characters removed, cut, then annotated. */
function bodyFromText(raw: string): Body {
  const cleaned = stripInvisible(raw.replace(/\r\n?/g, '\n'));
  const { text, truncated } = cap(cleaned.text);
  const { spans } = detectInstructions(text, cleaned.hiddenTexts);
  return { text, truncated, transformations: cleaned.transformations, spans };
}

/**
 * An HTML body read as a fetched page is (parseHtml: sanitised, main content or body, invisible
 * characters stripped, hidden content scanned). Its spans were found in the whole text, so those
 * reaching past a cut are dropped; spans in removed hidden content (offset -1) are kept.
 */
function bodyFromHtml(html: string): Body {
  // The part is already decoded to a string; as UTF-8 bytes its declared charset is the true one.
  const document = parseHtml(new TextEncoder().encode(html), 'utf-8');
  const { text, truncated } = cap(document.text);
  const spans = document.instructionSpans.filter(
    (span) => span.offset === -1 || span.offset + span.length <= text.length,
  );
  return { text, truncated, transformations: ['MAIL_TEXT_FROM_HTML', ...document.transformations], spans };
}

const isBlank = (value: string | null): value is null => value === null || value.trim() === '';

/** The text part when it says anything, else the HTML part, else '' (a message with no body). */
function readBody(text: string | null, html: string | null): Body {
  if (!isBlank(text)) return bodyFromText(text);
  if (!isBlank(html)) return bodyFromHtml(html);
  return { text: '', truncated: false, transformations: [], spans: [] };
}

/** An ISO timestamp from a Date header's text; null when it does not read as a date. */
function isoDate(raw: string | null): string | null {
  if (raw === null) return null;
  const time = Date.parse(raw.replace(/\s+/g, ' ').trim());
  if (Number.isNaN(time)) return null;
  // Years the database stores (0001-9999); a sender's year 10000 is no date anyone can use.
  const year = new Date(time).getUTCFullYear();
  if (year < 1 || year > 9999) return null;
  try {
    return new Date(time).toISOString();
  } catch {
    return null;
  }
}

/** A Message-ID without angle brackets, whitespace or invisible characters; case kept. */
function normaliseMessageId(raw: string | null): string | null {
  if (raw === null) return null;
  const id = stripInvisible(raw).text.replace(/\s+/g, '').replace(/^</, '').replace(/>$/, '');
  return id ? id.slice(0, MAIL_HEADER_MAX_CHARS) : null;
}

/**
 * Instruction-like content in a header field or attachment name: a visible match as a span at
 * offset -1 whose note names the field; a match in tag characters removed from it as the
 * detector's HIDDEN_TEXT span, its note prefixed with the field.
 */
function fieldSpans(where: string, value: string | null, hidden: string[]): InstructionSpan[] {
  if (value === null && hidden.length === 0) return [];
  return detectInstructions(value ?? '', hidden).spans.map((span) =>
    span.offset === -1
      ? { ...span, note: `In the ${where}: ${span.note ?? ''}`.trim() }
      : {
          offset: -1,
          length: span.length,
          kind: span.kind,
          excerpt: span.excerpt,
          note: `In the ${where}, not in the text.`,
        },
  );
}

/** A header field or name cleaned as a title is, and its instruction spans. */
function cleanField(
  where: string,
  raw: string | null,
  transformations: string[],
): { value: string | null; spans: InstructionSpan[] } {
  const hidden: string[] = [];
  const value = cleanTitle(raw, MAIL_HEADER_MAX_CHARS, transformations, hidden);
  return { value, spans: fieldSpans(where, value, hidden) };
}

/** A media type as RFC 2045 spells one (token characters); anything else is not stored as given. */
const normaliseType = (type: string): string => {
  const cleaned = type.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]{1,127}\/[a-z0-9!#$&^_.+-]{1,127}$/.test(cleaned)
    ? cleaned
    : 'application/octet-stream';
};

/** The stored mail: body read and annotated, header fields and attachment names cleaned and scanned. */
function finishMail(fields: MailFields): ParsedMail {
  const body = readBody(fields.text, fields.html);
  const transformations = [...body.transformations];
  const from = cleanField('From header', fields.from, transformations);
  const to = cleanField('To header', fields.to, transformations);
  const subject = cleanField('Subject header', fields.subject, transformations);
  const fieldSpanList = [...from.spans, ...to.spans, ...subject.spans];
  const attachments = fields.attachments.map((attachment, index) => {
    const name = cleanField(`name of attachment ${index + 1}`, attachment.name, transformations);
    fieldSpanList.push(...name.spans);
    return { ...attachment, name: name.value, content_type: normaliseType(attachment.content_type) };
  });
  const instructionSpans = [...body.spans, ...fieldSpanList].slice(0, MAX_SPANS);
  // Cairn's own credentials never reach a reader of the mail (issue 40); masked in place, so the
  // spans found above still point at the same characters.
  let masked = 0;
  const mask = (value: string | null) => {
    if (value === null) return null;
    const done = maskCairnCredentials(value);
    masked += done.masked;
    return done.text;
  };
  const text = mask(body.text) ?? '';
  const shownFrom = mask(from.value);
  const shownTo = mask(to.value);
  const shownSubject = mask(subject.value);
  const shownAttachments = attachments.map((a) => ({ ...a, name: mask(a.name) }));
  if (masked > 0) transformations.push('CREDENTIAL_REDACTED');
  const flags = [
    ...(instructionSpans.length > 0 ? ['INSTRUCTION_LIKE_CONTENT'] : []),
    ...(masked > 0 ? ['CREDENTIAL_REDACTED'] : []),
  ];
  return {
    from: shownFrom,
    to: shownTo,
    subject: shownSubject,
    date: fields.date,
    messageId: normaliseMessageId(fields.messageId),
    text,
    truncated: body.truncated,
    attachments: shownAttachments,
    transformations: [...new Set(transformations)],
    flags,
    instructionSpans,
  };
}

/** What MailParser gives for one message, attachments already reduced to metadata. */
interface MimeMessage {
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
function readMime(raw: Buffer): Promise<MimeMessage> {
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
function headerLineValue(lines: HeaderLines, key: string): string | null {
  const line = lines.find((candidate) => candidate.key === key)?.line;
  if (line === undefined) return null;
  const colon = line.indexOf(':');
  return colon === -1 ? null : line.slice(colon + 1).trim();
}

/** An address header (From, To) as text; several To headers are joined. */
function addressText(value: HeaderValue | undefined): string | null {
  if (value === undefined) return null;
  const text = (Array.isArray(value) ? value : [value])
    .map((entry) => (typeof entry === 'object' && entry !== null && 'text' in entry ? entry.text : ''))
    .filter((entry) => entry !== '')
    .join(', ');
  return text || null;
}

const stringHeader = (value: HeaderValue | undefined): string | null =>
  typeof value === 'string' ? value : null;

const isWhitespaceByte = (byte: number): boolean =>
  byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * Parses a raw RFC 5322 message into a ParsedMail. The Date is read from the header text itself:
 * mailparser would put the current time in place of a date it cannot read.
 * @throws MailRefused TOO_LARGE over LIMITS.mailbox.deliveryBytes; MALFORMED when the message is
 *   empty, has no header field at all (so is not a mail), or mailparser fails on it.
 */
export async function parseMail(raw: Uint8Array): Promise<ParsedMail> {
  if (raw.length > L.deliveryBytes) {
    throw new MailRefused(
      'TOO_LARGE',
      `The message is ${raw.length} bytes; Cairn accepts mail of up to ${L.deliveryBytes} bytes (2 MiB).`,
      { bytes: raw.length, limit: L.deliveryBytes },
    );
  }
  if (raw.every(isWhitespaceByte)) throw new MailRefused('MALFORMED', 'The message is empty.');
  // A Buffer sent to a parser thread arrives as a plain Uint8Array; this view copies nothing.
  const buffer = Buffer.isBuffer(raw) ? raw : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  const message = await readMime(buffer);
  if (!message.headerLines.some((line) => line.key !== '')) {
    throw new MailRefused('MALFORMED', 'The message has no header fields, so it is not an RFC 5322 message.');
  }
  const { headers } = message;
  return finishMail({
    from: addressText(headers.get('from')),
    to: addressText(headers.get('to')),
    subject: stringHeader(headers.get('subject')),
    date: isoDate(headerLineValue(message.headerLines, 'date')),
    messageId: stringHeader(headers.get('message-id')),
    text: message.text,
    html: message.html,
    attachments: message.attachments,
  });
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;

/**
 * A provider's already-parsed message as a ParsedMail: the same cleaning, body choice (text, else
 * HTML through the page sanitiser), limit and detector as parseMail. Attachments are the
 * provider's metadata; a sha256 that is not 64 hex digits is null. Never refuses.
 */
export function parseProcessedMail(mail: ProcessedMailInput): ParsedMail {
  return finishMail({
    from: mail.from,
    to: mail.to,
    subject: mail.subject,
    date: isoDate(mail.date),
    messageId: mail.messageId,
    text: mail.text,
    html: mail.html,
    attachments: mail.attachments.map((attachment) => ({
      name: attachment.name,
      content_type: attachment.contentType,
      size: Number.isFinite(attachment.size) ? Math.max(0, Math.floor(attachment.size)) : 0,
      sha256:
        attachment.sha256 && SHA256_HEX.test(attachment.sha256) ? attachment.sha256.toLowerCase() : null,
    })),
  });
}

/** parseMail as a value: refusals come back as `{ok: false}`; anything else still throws. */
export async function runMail(raw: Uint8Array): Promise<MailParseOutcome> {
  try {
    return { ok: true, mail: await parseMail(raw) };
  } catch (error) {
    if (error instanceof MailRefused) return { ok: false, refusal: error.refusal };
    throw error;
  }
}

/** parseProcessedMail as a pool job's value. */
export function runProcessedMail(mail: ProcessedMailInput): MailParseOutcome {
  return { ok: true, mail: parseProcessedMail(mail) };
}
