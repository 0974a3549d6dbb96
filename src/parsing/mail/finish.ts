/**
 * A message's fields made into the stored mail: the body chosen (text, else HTML through the page
 * sanitiser), cleaned, cut at the stored-text limit and scanned for instruction-like content; the
 * header fields and attachment names cleaned and scanned; Cairn's own credentials masked. Raw MIME
 * and provider-parsed mail both end here.
 */
import { maskCairnCredentials } from '../../kernel/credential-scan.ts';
import { parseHtml } from '../html/html.ts';
import { cleanTitle, stripInvisible } from '../html/invisible.ts';
import { detectInstructions } from '../instructions/instructions.ts';
import type { InstructionSpan } from '../types.ts';
import { MAIL_PARSE_LIMITS } from './limits.ts';
import { MAIL_HEADER_MAX_CHARS, type MailAttachment, type ParsedMail } from './types.ts';

const L = MAIL_PARSE_LIMITS;
/** As instructions.ts: enough spans to show what a message does, never an unbounded list. */
const MAX_SPANS = 50;

/** A message's fields as read, before cleaning (shared by raw MIME and provider-parsed mail). */
export interface MailFields {
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
export function isoDate(raw: string | null): string | null {
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
export function finishMail(fields: MailFields): ParsedMail {
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
