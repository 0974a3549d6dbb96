/**
 * The contract of inbound mail parsing (issue 18, DESIGN.md "mail: mailparser (in the parser
 * pool; attachment bytes discarded)"): what a received message reads as, and why one is refused.
 * A refusal is one typed error, MailRefused, whose code the mail area records as a failed
 * delivery attempt; it crosses the thread boundary as a value (as imports do). Kept apart
 * from mail.ts so the pool can use these without loading mailparser in the main thread.
 */
import type { InstructionSpan, ParseRefusal } from '../types.ts';

/** Longest From, To, Subject, Message-ID or attachment name kept; longer ones are cut. */
export const MAIL_HEADER_MAX_CHARS = 1_000;

/** One attachment as metadata: its bytes are hashed and counted, then dropped, never kept. */
export interface MailAttachment {
  /** The file name the message gives it (invisible characters removed), or null. */
  name: string | null;
  /** The MIME type, lowercased (application/octet-stream when none is given). */
  content_type: string;
  /** Decoded size in bytes. */
  size: number;
  /** Lowercase hex SHA-256 of the decoded content; null when a provider posted none. */
  sha256: string | null;
}

/**
 * A received mail as Cairn stores it. Header fields are single-line text with invisible
 * characters removed and whitespace runs collapsed, at most MAIL_HEADER_MAX_CHARS each.
 */
export interface ParsedMail {
  /** The From header as text, e.g. `"Alice" <alice@example.com>`. */
  from: string | null;
  /** The To header(s) as text, addresses joined with `, `. */
  to: string | null;
  subject: string | null;
  /** The Date header as an ISO 8601 UTC timestamp; null when absent or unreadable (never "now"). */
  date: string | null;
  /**
   * The Message-ID without its angle brackets and without whitespace, case kept as written
   * (RFC 5322 compares message ids literally): `<A1@x.test>` → `A1@x.test`. Null when absent.
   */
  messageId: string | null;
  /**
   * The text/plain body, line endings normalised to `\n` and invisible characters removed. When
   * the message has no non-blank text part, its HTML body read through the same sanitiser and
   * extractor as fetched pages (html.ts: scripts, styles, comments and hidden elements removed).
   * A message with neither (or only blank ones) has text `''`. At most
   * MAIL_PARSE_LIMITS.storedTextChars characters.
   */
  text: string;
  /** True when `text` was cut at MAIL_PARSE_LIMITS.storedTextChars. */
  truncated: boolean;
  attachments: MailAttachment[];
  /**
   * Each kind of change made, as ParsedDocument.transformations: MAIL_TEXT_FROM_HTML when the
   * text is the HTML body's, the HTML sanitiser's (SCRIPTS_REMOVED, HIDDEN_REMOVED, …) and
   * stripInvisible's (ZERO_WIDTH_REMOVED, …), from the body or the header fields.
   */
  transformations: string[];
  /** INSTRUCTION_LIKE_CONTENT when any span was found (in the text, hidden HTML or a header). */
  flags: string[];
  /**
   * The instruction detector's spans, as for fetched text: offsets into `text`; offset -1 for a
   * match in HTML removed as hidden (kind HIDDEN_TEXT) or in the From, To or Subject header (its
   * note names the header). Only spans that lie wholly inside the stored text are kept.
   */
  instructionSpans: InstructionSpan[];
}

/**
 * A provider's already-parsed message (Mailgun's parsed POST, Postal's processed JSON). The mail
 * area's ProcessedMail is this type (the parsing layer imports no area, so it is declared here).
 */
export interface ProcessedMailInput {
  from: string | null;
  to: string | null;
  subject: string | null;
  date: string | null;
  messageId: string | null;
  text: string | null;
  html: string | null;
  attachments: Array<{ name: string | null; contentType: string; size: number; sha256: string | null }>;
}

export type MailRefusalCode =
  /** Empty, no header fields at all, or the MIME parser failed on it (or its thread died). */
  | 'MALFORMED'
  /** Over MAIL_PARSE_LIMITS.deliveryBytes (2 MiB). */
  | 'TOO_LARGE'
  /** Parsing took longer than the pool's time limit. */
  | 'PARSE_TIMEOUT';

export interface MailParseRefusal {
  code: MailRefusalCode;
  /** One sentence saying what is wrong with the message. */
  message: string;
  details: Record<string, unknown>;
}

/** A mail job's result as it crosses back from the parser thread. */
export type MailParseOutcome = { ok: true; mail: ParsedMail } | { ok: false; refusal: MailParseRefusal };

/**
 * Why a mail could not be read. parseMail throws it; inside a parser thread it is turned into
 * `{ok: false}` (errors lose their class between threads) and the pool throws it again.
 */
export class MailRefused extends Error {
  readonly refusal: MailParseRefusal;
  constructor(code: MailRefusalCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'MailRefused';
    this.refusal = { code, message, details };
  }

  get code(): MailRefusalCode {
    return this.refusal.code;
  }
}

/** A mail job the pool itself failed (over its time limit, or its thread died) as a mail refusal. */
export function mailRefusalOf(error: ParseRefusal): MailParseRefusal {
  return {
    code: error.reason === 'PARSE_TIMEOUT' ? 'PARSE_TIMEOUT' : 'MALFORMED',
    message: error.message,
    details: error.details,
  };
}
