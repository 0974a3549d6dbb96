/**
 * Mailgun inbound (the hosted provider): verify a Routes `forward()` POST and turn its fields into an
 * InboundMail. Pure: no HTTP, no database; the transport parses the form and hands over fields and
 * the uploaded files' metadata.
 *
 * What Mailgun sends (researched; sources below):
 * - A route whose action is `forward("https://…")` makes Mailgun POST the received message to that
 *   URL, `application/x-www-form-urlencoded`, or `multipart/form-data` when the mail has
 *   attachments. Fully parsed by default; raw MIME (a `body-mime` field) only when the URL ends in
 *   "mime". Cairn's URL ends in "json", so Mailgun sends the parsed form; `body-mime` is still read.
 * - Parsed fields: `recipient` (RCPT TO), `sender` (MAIL FROM), `from` (the From header), `subject`,
 *   `body-plain` (always present), `body-html`, `stripped-text`, `stripped-signature`,
 *   `stripped-html`, `message-headers` (a JSON list of [name, value] pairs, order kept),
 *   `attachment-count`, `attachment-1`… (file uploads), `content-id-map`; headers also appear as
 *   top-level fields (`To`, `Date`, `Message-Id`, …).
 * - Every POST carries `timestamp` (seconds), `token` (random, 50 characters) and `signature`:
 *   hex HMAC-SHA256 keyed with the account's HTTP webhook signing key over timestamp + token
 *   (concatenated, no separator). Mailgun advises checking the timestamp's age and caching tokens
 *   so one is never accepted twice.
 * - The signature covers only timestamp and token, NOT the message: a captured
 *   (timestamp, token, signature) triple could carry another body. TLS keeps it secret in transit;
 *   the token as providerDeliveryId (one accepted use per token) and the ±window close the replay.
 * - Retries: anything but 200 or 406 is retried for 8 hours (10 min, 15 min, 30 min, 1 h, 2 h, 4 h);
 *   406 means rejected, not retried. A retry is a new POST (new timestamp, token and signature).
 *
 * Sources: https://documentation.mailgun.com/docs/mailgun/user-manual/receive-forward-store/receive-http
 * (parameter tables, "URL must end with mime", retry schedule, content types);
 * https://documentation.mailgun.com/docs/mailgun/user-manual/webhooks/securing-webhooks (the
 * signature, token caching, timestamp check); the older Mailgun user manual's "Parsed Messages
 * Parameters" and "MIME Messages Parameters" tables (attachment-count, attachment-x,
 * content-id-map, body-mime "full MIME envelope").
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundMail, ProcessedMail } from '../types.ts';

export type MailgunVerification = { ok: true } | { ok: false; reason: 'BAD_SIGNATURE' | 'STALE_TIMESTAMP' };

/** An uploaded file of the form, as the transport saw it (the bytes are not kept). */
export interface MailgunFile {
  field: string;
  filename: string | null;
  contentType: string;
  size: number;
  sha256: string;
}

export type MailgunMalformed = { refusal: 'MALFORMED'; detail: string };

const TIMESTAMP = /^\d{1,12}$/;
const SIGNATURE = /^[0-9a-f]{64}$/i;
// Mailgun's tokens are 50 characters; any plain visible-ASCII token up to 256 is taken.
const TOKEN = /^[\x21-\x7e]{1,256}$/;
const ATTACHMENT_FIELD = /^attachment-([1-9]\d{0,3})$/;
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Checks a Mailgun POST's signature: hex HMAC-SHA256(signingKey, timestamp + token), compared in
 * constant time, then the timestamp within ±windowSeconds of nowSeconds. Anything missing or
 * malformed (and an empty signing key) is BAD_SIGNATURE; a genuine signature over a timestamp
 * outside the window is STALE_TIMESTAMP.
 */
export function verifyMailgun(
  fields: { timestamp?: string; token?: string; signature?: string },
  signingKey: string,
  nowSeconds: number,
  windowSeconds = 300,
): MailgunVerification {
  const { timestamp, token, signature } = fields;
  if (!signingKey) return { ok: false, reason: 'BAD_SIGNATURE' };
  if (typeof timestamp !== 'string' || !TIMESTAMP.test(timestamp))
    return { ok: false, reason: 'BAD_SIGNATURE' };
  if (typeof token !== 'string' || !TOKEN.test(token)) return { ok: false, reason: 'BAD_SIGNATURE' };
  if (typeof signature !== 'string' || !SIGNATURE.test(signature))
    return { ok: false, reason: 'BAD_SIGNATURE' };
  const expected = createHmac('sha256', signingKey)
    .update(timestamp + token, 'utf8')
    .digest();
  const given = Buffer.from(signature, 'hex');
  // Both are 32 bytes here (the pattern above), as timingSafeEqual requires.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'BAD_SIGNATURE' };
  }
  if (!Number.isFinite(nowSeconds) || Math.abs(Number(timestamp) - nowSeconds) > windowSeconds) {
    return { ok: false, reason: 'STALE_TIMESTAMP' };
  }
  return { ok: true };
}

/**
 * Turns a verified Mailgun POST into an InboundMail: the raw message when `body-mime` is present,
 * the parsed fields otherwise. `files` are the form's file parts (attachment-1…, bytes already
 * reduced to size and sha256 by the transport); `size` is the request body's byte length.
 */
export function mailgunToInbound(
  fields: Record<string, string>,
  files: MailgunFile[],
  size: number,
): InboundMail | MailgunMalformed {
  const malformed = (detail: string): MailgunMalformed => ({ refusal: 'MALFORMED', detail });
  const field = (name: string): string | undefined =>
    Object.hasOwn(fields, name) && typeof fields[name] === 'string' ? fields[name] : undefined;

  if (!Number.isSafeInteger(size) || size < 0) return malformed('size must be a non-negative integer');
  const token = field('token');
  if (!token) return malformed('token is missing');

  const recipients = [
    ...new Set(
      (field('recipient') ?? '')
        .split(',')
        .map((r) => r.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  if (recipients.length === 0) return malformed('recipient is missing');
  const envelopeFrom = field('sender')?.trim() || null;
  const base = {
    via: 'MAILGUN' as const,
    recipients,
    envelopeFrom,
    size,
    providerDeliveryId: token,
    remote: 'mailgun',
  };

  const mime = field('body-mime');
  if (mime !== undefined) {
    if (mime.length === 0) return malformed('body-mime is empty');
    return { ...base, raw: Buffer.from(mime, 'utf8'), processed: null };
  }

  const headers = readHeaders(field('message-headers'));
  if (headers === null) return malformed('message-headers is not a JSON list of [name, value] pairs');
  const header = (name: string): string | null => {
    const hit = headers.find(([n]) => n.toLowerCase() === name.toLowerCase());
    return hit ? hit[1] : null;
  };

  const attachments = readAttachments(files, field('attachment-count'));
  if (typeof attachments === 'string') return malformed(attachments);

  const processed: ProcessedMail = {
    from: field('from') ?? header('From'),
    to: field('To') ?? header('To'),
    subject: field('subject') ?? header('Subject'),
    date: field('Date') ?? header('Date'),
    messageId: field('Message-Id') ?? header('Message-Id'),
    text: field('body-plain') ?? field('stripped-text') ?? null,
    html: field('body-html') ?? field('stripped-html') ?? null,
    attachments,
  };
  return { ...base, raw: null, processed };
}

/** `message-headers` as [name, value] pairs: [] when absent, null when not that shape. */
function readHeaders(json: string | undefined): Array<[string, string]> | null {
  if (json === undefined) return [];
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!Array.isArray(value)) return null;
  const pairs: Array<[string, string]> = [];
  for (const pair of value) {
    if (
      !Array.isArray(pair) ||
      pair.length !== 2 ||
      typeof pair[0] !== 'string' ||
      typeof pair[1] !== 'string'
    ) {
      return null;
    }
    pairs.push([pair[0], pair[1]]);
  }
  return pairs;
}

/** The attachment-N files in order, checked against attachment-count when sent; a string says what is wrong. */
function readAttachments(
  files: MailgunFile[],
  countField: string | undefined,
): ProcessedMail['attachments'] | string {
  const numbered: Array<{ n: number; file: MailgunFile }> = [];
  for (const file of files) {
    const match = ATTACHMENT_FIELD.exec(file.field);
    if (!match) return `unexpected file field ${JSON.stringify(file.field.slice(0, 64))}`;
    if (!Number.isSafeInteger(file.size) || file.size < 0 || !SHA256_HEX.test(file.sha256)) {
      return `file ${file.field} has no valid size and sha256`;
    }
    numbered.push({ n: Number(match[1]), file });
  }
  numbered.sort((a, b) => a.n - b.n);
  for (const [i, { n }] of numbered.entries()) {
    if (n !== i + 1) return `attachment files are not numbered 1…${numbered.length}`;
  }
  if (countField !== undefined) {
    if (!/^\d{1,4}$/.test(countField)) return 'attachment-count is not a number';
    if (Number(countField) !== numbered.length) {
      return `attachment-count says ${Number(countField)}, ${numbered.length} attachment files arrived`;
    }
  }
  return numbered.map(({ file }) => ({
    name: file.filename,
    contentType: file.contentType || 'application/octet-stream',
    size: file.size,
    sha256: file.sha256,
  }));
}
