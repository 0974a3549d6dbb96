import { createHash, timingSafeEqual } from 'node:crypto';
import Busboy from 'busboy';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import { ConfigError } from '../../../config/config.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { registerRateLimit } from '../../../web/http/rate-limit.ts';
import type { DeliveryOutcome } from '../deliver.ts';
import { type MailgunFile, mailgunToInbound, verifyMailgun } from '../inbound/mailgun.ts';
import { postalPublicKey, postalToInbound, verifyPostal } from '../inbound/postal.ts';
import type { MailService } from '../owner-mail.ts';
import type { InboundMail, MailRefusal } from '../types.ts';

/**
 * The mail providers' callbacks (SPEC "Mail callbacks"; docs/mail.md): Mailgun, the hosted one,
 * at /v1/mailgun/inbound/json, and Postal, the self-hosted one, at /v1/postal/inbound/json. Both
 * are checked over the exact bytes received before anything is read, and end in the same
 * deliverMail as the SMTP receiver. Called by the providers, never by agents; they only receive.
 *
 * Answers: 200 for mail stored, a duplicate or a replay (nothing to retry); 401 for a bad or
 * stale signature or key; 406 for mail that cannot be taken (unknown mailbox, closed campaign,
 * full mailbox, malformed), which Mailgun does not retry and Postal bounces; 413 over 2 MiB;
 * 404 when the provider is not configured; 429 over the per-address rate (both providers retry
 * it; not recorded, or a flood would write a row a post). Every other refusal is kept as a failed
 * attempt.
 */

/** SPEC Limits (Mailbox): a delivery payload is at most 2 MiB. */
const PAYLOAD_BYTES = 2 * 1024 * 1024;

export interface MailCallbackDeps {
  mail: MailService;
  clock: Clock;
  /** Posts per minute per client address (CAIRN_PUBLIC_RATE_LIMIT): the providers retry a 429. */
  ratePerMinute: number;
  redis: Redis | null;
  mailgun: { signingKey?: string };
  postal: { publicKey?: string; apiKey?: string };
}

export async function mailCallbackRoutes(app: FastifyInstance, deps: MailCallbackDeps): Promise<void> {
  // A key that cannot be read would refuse every delivery as a bad signature: refuse to start.
  if (deps.postal.publicKey) {
    try {
      postalPublicKey(deps.postal.publicKey);
    } catch (err) {
      throw new ConfigError([`CAIRN_POSTAL_PUBLIC_KEY: ${(err as Error).message}`]);
    }
  }
  // The signatures are over the bytes as sent: every body is read as a Buffer here, unparsed.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: PAYLOAD_BYTES }, (_req, body, done) =>
    done(null, body),
  );
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'mail-callbacks',
    redis: deps.redis,
    who: 'from this address',
  });
  app.setErrorHandler(async (err: FastifyError, req, reply) => {
    if (err.statusCode === 429) return problem(reply, 429, 'RATE_LIMITED', err.message);
    const via = req.url.startsWith('/v1/postal/') ? 'POSTAL' : 'MAILGUN';
    if (err.statusCode === 413) {
      await deps.mail.refuseUnread(via, 'TOO_LARGE', req.ip, Number(req.headers['content-length']) || null);
      return problem(reply, 413, 'TOO_LARGE', 'A delivery payload is at most 2 MiB.');
    }
    if (err.statusCode && err.statusCode < 500)
      return problem(reply, err.statusCode, 'BAD_REQUEST', err.message);
    req.log.error({ err }, 'mail callback failed');
    return problem(reply, 500, 'INTERNAL', 'The mail could not be stored now; the provider retries.');
  });

  app.post('/v1/mailgun/inbound/json', { bodyLimit: PAYLOAD_BYTES }, async (req, reply) => {
    const key = deps.mailgun.signingKey;
    if (!key) return problem(reply, 404, 'NOT_FOUND', 'Mailgun delivery is not configured on this Cairn.');
    const raw = bodyOf(req);
    const form = await readForm(raw, req.headers['content-type'] ?? '');
    if (!form) {
      await deps.mail.refuseUnread('MAILGUN', 'MALFORMED', req.ip, raw.length);
      return problem(reply, 406, 'MALFORMED', 'Send the form Mailgun posts (urlencoded or multipart).');
    }
    const verified = verifyMailgun(form.fields, key, Math.floor(deps.clock.now().getTime() / 1000));
    if (!verified.ok) {
      await deps.mail.refuseUnread('MAILGUN', verified.reason, req.ip, raw.length);
      return problem(
        reply,
        401,
        verified.reason,
        'The Mailgun signature does not verify with the signing key, or is stale.',
      );
    }
    const inbound = mailgunToInbound(form.fields, form.files, raw.length);
    return deliverAnswer(deps, reply, 'MAILGUN', req.ip, raw.length, inbound);
  });

  app.post('/v1/postal/inbound/json', { bodyLimit: PAYLOAD_BYTES }, async (req, reply) => {
    const { publicKey, apiKey } = deps.postal;
    if (!publicKey || !apiKey)
      return problem(reply, 404, 'NOT_FOUND', 'Postal delivery is not configured on this Cairn.');
    const raw = bodyOf(req);
    if (!sameSecret(postalKeyOf(req), apiKey)) {
      await deps.mail.refuseUnread('POSTAL', 'BAD_SIGNATURE', req.ip, raw.length);
      return problem(
        reply,
        401,
        'BAD_SIGNATURE',
        'The endpoint key is missing or wrong (HTTP Basic password, or ?key=).',
      );
    }
    const header = req.headers['x-postal-signature-256'];
    const verified = verifyPostal(raw, Array.isArray(header) ? header[0] : header, publicKey);
    if (!verified.ok) {
      await deps.mail.refuseUnread('POSTAL', 'BAD_SIGNATURE', req.ip, raw.length);
      return problem(
        reply,
        401,
        'BAD_SIGNATURE',
        'X-Postal-Signature-256 does not verify with the pinned public key.',
      );
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      body = null;
    }
    return deliverAnswer(
      deps,
      reply,
      'POSTAL',
      req.ip,
      raw.length,
      body === null ? malformed('not JSON') : postalToInbound(body),
    );
  });
}

const malformed = (detail: string) => ({ refusal: 'MALFORMED' as const, detail });

async function deliverAnswer(
  deps: MailCallbackDeps,
  reply: FastifyReply,
  via: 'MAILGUN' | 'POSTAL',
  remote: string,
  size: number,
  inbound: InboundMail | { refusal: 'MALFORMED'; detail: string },
) {
  if ('refusal' in inbound) {
    await deps.mail.refuseUnread(via, 'MALFORMED', remote, size);
    return problem(reply, 406, 'MALFORMED', `The payload could not be read: ${inbound.detail}.`);
  }
  const outcomes = await deps.mail.deliver({ ...inbound, remote: `${via.toLowerCase()} ${remote}` });
  const taken = outcomes.filter((o) => o.outcome !== 'REFUSED' || o.reason === 'REPLAYED');
  if (taken.length > 0) return reply.code(200).send({ outcomes: outcomes.map(shown) });
  const reason: MailRefusal = outcomes[0]?.reason ?? 'UNKNOWN_MAILBOX';
  return reply.code(406).send({
    error: { code: reason, message: REFUSALS[reason] ?? 'The mail was refused.' },
    outcomes: outcomes.map(shown),
  });
}

const REFUSALS: Partial<Record<MailRefusal, string>> = {
  UNKNOWN_MAILBOX: 'No mailbox here has that address.',
  CAMPAIGN_CLOSED: 'The campaign of that mailbox is closed; it takes no new mail.',
  CAMPAIGN_STOPPED: 'The campaign of that mailbox is stopping; it takes no new mail.',
  MAILBOX_FULL: 'The mailbox is full; its owner has been told.',
  TOO_LARGE: 'A delivery payload is at most 2 MiB.',
  MALFORMED: 'The message could not be read.',
};

/** An outcome without the mail id: the provider needs to know what happened, not where it is. */
function shown(o: DeliveryOutcome) {
  return { recipient: o.recipient, outcome: o.outcome, ...(o.reason ? { reason: o.reason } : {}) };
}

function problem(reply: FastifyReply, status: number, code: string, message: string) {
  return reply.code(status).send({ error: { code, message } });
}

function bodyOf(req: FastifyRequest): Buffer {
  return Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
}

/** The endpoint key: HTTP Basic's password (Postal sends URL credentials so), or `?key=`. */
function postalKeyOf(req: FastifyRequest): string | null {
  const auth = req.headers.authorization;
  if (auth?.toLowerCase().startsWith('basic ')) {
    const decoded = Buffer.from(auth.slice(6).trim(), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : decoded;
  }
  const key = (req.query as { key?: unknown } | undefined)?.key;
  return typeof key === 'string' ? key : null;
}

/** Constant-time comparison of two secrets of any length (hashed first, so lengths leak nothing). */
function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/**
 * Mailgun's form: urlencoded, or multipart when the mail has attachments. Attachment bytes are
 * hashed and counted as they stream by, and dropped. Null when it is neither.
 */
async function readForm(
  raw: Buffer,
  contentType: string,
): Promise<{ fields: Record<string, string>; files: MailgunFile[] } | null> {
  const type = contentType.split(';')[0]?.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded') {
    return { fields: Object.fromEntries(new URLSearchParams(raw.toString('utf8'))), files: [] };
  }
  if (type !== 'multipart/form-data') return null;
  return new Promise((resolve) => {
    const fields: Record<string, string> = {};
    const files: MailgunFile[] = [];
    let parser: Busboy.Busboy;
    try {
      // A field as large as the whole payload may be (body-mime, body-plain), never cut silently.
      parser = Busboy({
        headers: { 'content-type': contentType },
        limits: { fields: 200, files: 50, fieldSize: PAYLOAD_BYTES },
      });
    } catch {
      resolve(null);
      return;
    }
    let cut = false;
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated || info.nameTruncated) cut = true;
      fields[name] = value;
    });
    parser.on('fieldsLimit', () => {
      cut = true;
    });
    parser.on('filesLimit', () => {
      cut = true;
    });
    parser.on('file', (field, stream, info) => {
      const hash = createHash('sha256');
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        hash.update(chunk);
      });
      stream.on('end', () => {
        files.push({
          field,
          filename: info.filename ?? null,
          contentType: info.mimeType,
          size,
          sha256: hash.digest('hex'),
        });
      });
    });
    parser.on('error', () => resolve(null));
    parser.on('close', () => resolve(cut ? null : { fields, files }));
    parser.end(raw);
  });
}
