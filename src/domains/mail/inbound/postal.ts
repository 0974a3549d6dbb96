/**
 * Postal inbound (the self-hosted provider): verify an HTTP endpoint's POST and turn its JSON into
 * an InboundMail. Pure: no HTTP, no database; the transport hands over the exact raw body bytes,
 * the signature header, and the parsed JSON.
 *
 * What Postal sends (researched; sources below):
 * - A route delivering to an "HTTP endpoint" POSTs each incoming message to the endpoint's URL.
 *   Encoding "BodyAsJSON" sends `Content-Type: application/json` (the other, "FormData", is not
 *   used here). Format "Hash" (the UI's "processed") sends {id, rcpt_to, mail_from, token, subject,
 *   message_id, timestamp (float seconds), size (the raw message's size; a string in the docs'
 *   example), spam_status, bounce, received_with_ssl, to, cc, from, date, in_reply_to, references,
 *   html_body, plain_body, attachment_quantity, auto_submitted, reply_to, and, with "Include
 *   attachment data", attachments: [{filename, content_type, size, data}]}; with "separate
 *   replies" plain_body loses the quoted part and replies_from_plain_body carries it. Format
 *   "RawMessage" sends {id, rcpt_to, mail_from, message, base64: true, size}. Base64 values
 *   (attachment data, the raw message) come from Ruby's Base64.encode64, so they carry a newline
 *   every 60 characters.
 * - Signing: every such request carries `X-Postal-Signature-256` = Base64.strict_encode64 of an
 *   RSA (PKCS#1 v1.5) SHA-256 signature over the exact request body, made with the installation's
 *   signing key (`signing.key`, the one `postal default-dkim-record` prints the public half of as
 *   `p=`, and `/.well-known/jwks.json` publishes), plus the legacy `X-Postal-Signature` (SHA-1,
 *   refused here) and `X-Postal-Signature-KID` (the key's JWK thumbprint). The signature covers the
 *   body only: no timestamp and not the URL, so a replayed body verifies again. `id` (the message's
 *   id in that Postal mail server's message database) is the delivery id that stops replays; a
 *   retry of one delivery carries the same id.
 * - Not the per-domain DKIM key shown on Postal's DNS page: that key is another one (postal#616).
 * - Postal's HTTP endpoints have no custom headers; the URL's query string is kept, and user
 *   information in the URL (`https://user:pass@host/…`) is sent as HTTP Basic authorization.
 * - Responses: 2xx is delivered; 5xx and connection errors are retried; 429 fails without a
 *   bounce; any other status fails the delivery and bounces the mail to its sender.
 *
 * Sources: postalserver/docs content/en/developer/http-payloads.md (payloads);
 * postalserver/postal app/senders/http_sender.rb (fields, encode64, status handling),
 * lib/postal/http.rb (the three signature headers, basic auth from the URL, query kept),
 * app/lib/signer.rb (RSA SHA-256, strict_encode64), app/models/http_endpoint.rb (no header
 * settings), app/controllers/well_known_controller.rb (JWKS); postalserver/postal issues #432 and
 * #616 (which key signs).
 */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import { z } from 'zod';
import type { InboundMail, ProcessedMail } from '../types.ts';

export type PostalVerification = { ok: true } | { ok: false; reason: 'BAD_SIGNATURE' };
export type PostalMalformed = { refusal: 'MALFORMED'; detail: string };

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
// A 16384-bit RSA signature is 2732 base64 characters; nothing longer is a Postal signature.
const MAX_SIGNATURE_CHARS = 2800;

let cachedKey: { text: string; key: KeyObject } | null = null;

/**
 * The Postal public key from configuration, in any of the forms an operator may paste: a PEM block
 * (`BEGIN PUBLIC KEY` or `BEGIN RSA PUBLIC KEY`, with line breaks or literal `\n`); the bare base64
 * DER SubjectPublicKeyInfo that Postal prints (wrapped here as a PEM `PUBLIC KEY`); or the whole
 * `v=DKIM1; …; p=…` record of `postal default-dkim-record` (its `p=` value is taken). Throws when
 * it is none of these, is a private key, or is not RSA: a configuration error, not the sender's
 * fault (call it at start-up to refuse a bad CAIRN_POSTAL_PUBLIC_KEY early).
 */
export function postalPublicKey(text: string): KeyObject {
  if (cachedKey?.text === text) return cachedKey.key;
  const trimmed = text.trim();
  if (/PRIVATE KEY/.test(trimmed))
    throw new Error('the Postal key must be the public key, not the private one');
  let pem: string;
  if (trimmed.startsWith('-----BEGIN')) {
    // An environment file may hold the PEM on one line with literal \n escapes.
    pem = trimmed.replace(/\\n/g, '\n');
  } else {
    const dkim = /(?:^|;)\s*p=([^;]*)/.exec(trimmed);
    const b64 = (dkim ? dkim[1]! : trimmed).replace(/\s+/g, '');
    if (b64.length === 0 || b64.length % 4 !== 0 || !BASE64.test(b64)) {
      throw new Error('the Postal key is neither a PEM block nor base64 DER');
    }
    pem = `-----BEGIN PUBLIC KEY-----\n${b64.match(/.{1,64}/g)!.join('\n')}\n-----END PUBLIC KEY-----\n`;
  }
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new Error('the Postal key cannot be read as a public key');
  }
  if (key.asymmetricKeyType !== 'rsa') throw new Error('the Postal key must be an RSA key');
  cachedKey = { text, key };
  return key;
}

/**
 * Checks `X-Postal-Signature-256`: base64 RSA-SHA256 (PKCS#1 v1.5) over the exact raw body, against
 * the configured public key. A missing, malformed or wrong signature is BAD_SIGNATURE (the SHA-1
 * `X-Postal-Signature` is never looked at). Throws only when the configured key is unusable.
 */
export function verifyPostal(
  rawBody: Buffer,
  signatureHeader: string | undefined,
  publicKeyPem: string,
): PostalVerification {
  const key = postalPublicKey(publicKeyPem);
  const signature = typeof signatureHeader === 'string' ? signatureHeader.trim() : '';
  if (
    signature.length === 0 ||
    signature.length > MAX_SIGNATURE_CHARS ||
    signature.length % 4 !== 0 ||
    !BASE64.test(signature)
  ) {
    return { ok: false, reason: 'BAD_SIGNATURE' };
  }
  try {
    return verify('RSA-SHA256', rawBody, key, Buffer.from(signature, 'base64'))
      ? { ok: true }
      : { ok: false, reason: 'BAD_SIGNATURE' };
  } catch {
    return { ok: false, reason: 'BAD_SIGNATURE' };
  }
}

/** Base64 as Ruby's encode64 writes it (line breaks allowed), checked before decoding. */
const base64Text = z
  .string()
  .refine((s) => {
    const compact = s.replace(/\s+/g, '');
    return compact.length % 4 === 0 && BASE64.test(compact);
  }, 'must be base64')
  .transform((s) => Buffer.from(s.replace(/\s+/g, ''), 'base64'));

const deliveryId = z.union([
  z.number().int().nonnegative(),
  z.string().regex(/^\d{1,20}$/, 'must be digits'),
]);
const byteCount = z.union([
  z.number().int().nonnegative(),
  z
    .string()
    .regex(/^\d{1,15}$/, 'must be a byte count')
    .transform(Number),
]);
const text = z.string().nullish();
const address = z.string().trim().toLowerCase().min(1).max(998);

const rawPayload = z.looseObject({
  id: deliveryId.optional(),
  rcpt_to: address,
  mail_from: text,
  token: z.string().min(1).max(256).optional(),
  message: z.string().min(1),
  base64: z.boolean().optional(),
  size: byteCount.nullish(),
});

const processedPayload = z.looseObject({
  id: deliveryId.optional(),
  rcpt_to: address,
  mail_from: text,
  token: z.string().min(1).max(256).optional(),
  subject: text,
  message_id: text,
  size: byteCount.nullish(),
  to: text,
  from: text,
  date: text,
  plain_body: text,
  html_body: text,
  attachment_quantity: z.number().int().nonnegative().nullish(),
  attachments: z
    .array(
      z.looseObject({
        filename: text,
        content_type: text,
        size: z.number().int().nonnegative().nullish(),
        data: base64Text,
      }),
    )
    .nullish(),
});

/**
 * Turns a verified Postal JSON payload into an InboundMail. A payload with `message` is the raw
 * format (the decoded RFC 822 bytes become `raw`); any other is the processed format (attachments
 * reduced to name, type, size and sha256 of their decoded bytes, which are then dropped).
 * Recipients come from rcpt_to; the delivery id is String(id), or the token when there is no id.
 */
export function postalToInbound(body: unknown): InboundMail | PostalMalformed {
  const malformed = (detail: string): PostalMalformed => ({ refusal: 'MALFORMED', detail });
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return malformed('the body is not a JSON object');
  }

  if ('message' in body) {
    const parsed = rawPayload.safeParse(body);
    if (!parsed.success) return malformed(describe(parsed.error));
    const p = parsed.data;
    const providerDeliveryId = deliveryIdOf(p);
    if (!providerDeliveryId) return malformed('neither id nor token: a replay could not be recognised');
    let raw: Buffer;
    if (p.base64 === false) {
      raw = Buffer.from(p.message, 'utf8');
    } else {
      const decoded = base64Text.safeParse(p.message);
      if (!decoded.success) return malformed('message: must be base64');
      raw = decoded.data;
    }
    if (raw.length === 0) return malformed('message: is empty');
    return {
      via: 'POSTAL',
      recipients: [p.rcpt_to],
      envelopeFrom: p.mail_from?.trim() || null,
      raw,
      processed: null,
      size: raw.length,
      providerDeliveryId,
      remote: 'postal',
    };
  }

  const parsed = processedPayload.safeParse(body);
  if (!parsed.success) return malformed(describe(parsed.error));
  const p = parsed.data;
  const providerDeliveryId = deliveryIdOf(p);
  if (!providerDeliveryId) return malformed('neither id nor token: a replay could not be recognised');
  const files = p.attachments ?? [];
  if (p.attachments && p.attachment_quantity != null && p.attachment_quantity !== files.length) {
    return malformed(
      `attachment_quantity says ${p.attachment_quantity}, ${files.length} attachments arrived`,
    );
  }
  for (const [i, a] of files.entries()) {
    if (a.size != null && a.size !== a.data.length) {
      return malformed(`attachments.${i}.size says ${a.size}, the data holds ${a.data.length} bytes`);
    }
  }
  const attachments: ProcessedMail['attachments'] = files.map((a) => ({
    name: a.filename ?? null,
    contentType: a.content_type || 'application/octet-stream',
    size: a.data.length,
    sha256: sha256Hex(a.data),
  }));
  const processed: ProcessedMail = {
    from: p.from ?? null,
    to: p.to ?? null,
    subject: p.subject ?? null,
    date: p.date ?? null,
    messageId: p.message_id ?? null,
    text: p.plain_body ?? null,
    html: p.html_body ?? null,
    attachments,
  };
  const size =
    p.size ??
    Buffer.byteLength(p.plain_body ?? '') +
      Buffer.byteLength(p.html_body ?? '') +
      files.reduce((sum, a) => sum + a.data.length, 0);
  return {
    via: 'POSTAL',
    recipients: [p.rcpt_to],
    envelopeFrom: p.mail_from?.trim() || null,
    raw: null,
    processed,
    size,
    providerDeliveryId,
    remote: 'postal',
  };
}

/**
 * The delivery's identity for replay protection: Postal's id counts up per mail server (two
 * servers, or a reset database, reuse ids), so the message's random token goes with it.
 */
function deliveryIdOf(p: { id?: number | string | undefined; token?: string | undefined }): string | null {
  if (p.id !== undefined) return p.token ? `${p.id}:${p.token}` : String(p.id);
  return p.token ?? null;
}

function sha256Hex(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The first few zod issues as one line: `path: message; …`. */
function describe(error: z.ZodError): string {
  return error.issues
    .slice(0, 3)
    .map((issue) => `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`)
    .join('; ');
}
