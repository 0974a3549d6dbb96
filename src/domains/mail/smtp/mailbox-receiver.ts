import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { type Config, ConfigError } from '../../../config/config.ts';
import type { DeliveryOutcome, RecipientVerdict } from '../deliver.ts';
import type { MailService } from '../owner-mail.ts';
import { startSmtpReceiver } from './receiver.ts';
import type { RecipientReply, SmtpReceiver } from './receiver-options.ts';

/** SPEC Limits (Mailbox): a delivery payload is at most 2 MiB; the SIZE extension advertises it. */
const MAX_BYTES = 2 * 1024 * 1024;

/**
 * The built-in SMTP receiver of `cairn serve` (CAIRN_SMTP_PORT; off when unset): recipients are
 * campaign mailboxes, checked at RCPT TO, and every message ends in the same deliverMail as the
 * providers' callbacks. It only receives; nothing here can send.
 */
export async function startMailboxReceiver(
  config: Config,
  mail: MailService,
  logger: Logger,
): Promise<SmtpReceiver | null> {
  const { port, host, tlsKeyFile, tlsCertFile } = config.mail.smtp;
  if (port === undefined) return null;
  const tls = tlsKeyFile && tlsCertFile ? readTls(tlsKeyFile, tlsCertFile) : undefined;
  const receiver = await startSmtpReceiver({
    host,
    port,
    name: config.mail.domain,
    maxBytes: MAX_BYTES,
    tls,
    checkRecipient: async (address, remote) => recipientReply(await mail.checkRecipient(address, remote)),
    deliver: async (message) => replyTo(await mail.deliver(message)),
    // Its size alone refuses it: deliver records a TOO_LARGE attempt for each mailbox named.
    oversized: (message) => mail.deliver(message),
    logger,
  });
  logger.info(
    { port: receiver.port, tls: tls !== undefined },
    'SMTP receiver listening for campaign mailboxes',
  );
  return receiver;
}

/** The STARTTLS key and certificate, refused at start when unreadable or not a pair. */
export function readTls(keyFile: string, certFile: string): { key: Buffer; cert: Buffer } {
  const read = (name: string, file: string) => {
    try {
      return readFileSync(file);
    } catch (err) {
      throw new ConfigError([`${name}: cannot read ${file} (${(err as NodeJS.ErrnoException).code})`]);
    }
  };
  const key = read('CAIRN_SMTP_TLS_KEY_FILE', keyFile);
  const cert = read('CAIRN_SMTP_TLS_CERT_FILE', certFile);
  // Checked here, not at the first STARTTLS: a key that is not the certificate's would fail
  // every handshake while the server looked healthy.
  let pair = false;
  try {
    pair = new X509Certificate(cert).checkPrivateKey(createPrivateKey(key));
  } catch (err) {
    throw new ConfigError([
      `CAIRN_SMTP_TLS_KEY_FILE, CAIRN_SMTP_TLS_CERT_FILE: not a PEM key and certificate (${(err as Error).message.slice(0, 120)})`,
    ]);
  }
  if (!pair) {
    throw new ConfigError([
      'CAIRN_SMTP_TLS_KEY_FILE, CAIRN_SMTP_TLS_CERT_FILE: the key is not the certificate’s private key',
    ]);
  }
  return { key, cert };
}

/** One reply for the whole message: taken if any mailbox took it (or had it already). */
function replyTo(outcomes: DeliveryOutcome[]): { ok: true } | { ok: false; code: number; message: string } {
  if (outcomes.some((o) => o.outcome !== 'REFUSED')) return { ok: true };
  switch (outcomes[0]?.reason) {
    case 'MAILBOX_FULL':
      return { ok: false, code: 552, message: 'Mailbox full; its owner has been told' };
    case 'TOO_LARGE':
      return { ok: false, code: 552, message: 'Message too large (2 MiB at most)' };
    case 'CAMPAIGN_CLOSED':
      return { ok: false, code: 550, message: 'Mailbox closed: its campaign takes no new mail' };
    case 'CAMPAIGN_STOPPED':
      return { ok: false, code: 550, message: 'Mailbox stopped: its campaign takes no new mail' };
    case 'MALFORMED':
      return { ok: false, code: 554, message: 'Message could not be read' };
    default:
      return { ok: false, code: 550, message: 'No such mailbox here' };
  }
}

/**
 * The reply at RCPT TO. A full mailbox is 452 4.2.2, a temporary refusal: the sender keeps the
 * mail and tries again, and the owner may make room meanwhile (RFC 5321 4.5.3.1.10).
 */
function recipientReply(verdict: RecipientVerdict): RecipientReply {
  switch (verdict) {
    case 'ACCEPT':
      return { ok: true };
    case 'MAILBOX_FULL':
      return { ok: false, code: 452, message: 'Mailbox full; its owner has been told', unknown: false };
    case 'CAMPAIGN_CLOSED':
      return {
        ok: false,
        code: 550,
        message: 'Mailbox closed: its campaign takes no new mail',
        unknown: false,
      };
    case 'CAMPAIGN_STOPPED':
      return {
        ok: false,
        code: 550,
        message: 'Mailbox stopped: its campaign takes no new mail',
        unknown: false,
      };
    default:
      return { ok: false, code: 550, message: 'No such mailbox here', unknown: true };
  }
}
