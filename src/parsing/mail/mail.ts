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

import { finishMail, isoDate } from './finish.ts';
import { MAIL_PARSE_LIMITS } from './limits.ts';
import { addressText, headerLineValue, readMime, stringHeader } from './mime.ts';
import { type MailParseOutcome, MailRefused, type ParsedMail, type ProcessedMailInput } from './types.ts';

const L = MAIL_PARSE_LIMITS;

const isWhitespaceByte = (byte: number): boolean =>
  byte === 0x20 || byte === 0x09 || byte === 0x0a || byte === 0x0d;

/**
 * Parses a raw RFC 5322 message into a ParsedMail. The Date is read from the header text itself:
 * mailparser would put the current time in place of a date it cannot read.
 * @throws MailRefused TOO_LARGE over MAIL_PARSE_LIMITS.deliveryBytes; MALFORMED when the message is
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
