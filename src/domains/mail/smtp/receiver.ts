import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { loggableError } from '../../../logging.ts';
import { deliveryReply, type ReplyError, replyError } from './replies.ts';

/**
 * The built-in SMTP receiver (issue 18): it takes mail for the campaign mailboxes here and hands
 * each message to `deliver`. It only receives: there is no AUTH (no accounts, nothing to relay
 * for), a recipient that is not a mailbox here is refused at RCPT TO, and nothing in this folder
 * opens a connection anywhere (the reverse DNS lookup of the client is off too).
 */
/**
 * An InboundMail (src/domains/mail/types.ts) as SMTP hands it over. Declared here rather than
 * imported because a transport reaches an area only through its index.ts (npm run layers), and
 * the mail area has none; being a narrower shape of the same fields, a `deliver` that takes an
 * InboundMail fits as it is (receiver.test.ts checks that it stays so).
 */
export interface SmtpInboundMail {
  via: 'SMTP';
  /** RCPT TO, lowercased, each once. */
  recipients: string[];
  /** MAIL FROM; null for the null sender (<>), as bounces use. */
  envelopeFrom: string | null;
  /** The message exactly as received (after the DATA dot-unstuffing). */
  raw: Buffer;
  processed: null;
  size: number;
  providerDeliveryId: null;
  /** The client's IP address. */
  remote: string | null;
}

export interface SmtpReceiverOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  /** The server's own name in the greeting (e.g. the mail domain). */
  name: string;
  /** Largest message accepted, advertised with the SIZE extension (RFC 1870) and enforced while reading DATA. */
  maxBytes: number;
  /** PEM key and certificate: STARTTLS is offered only when given. */
  tls?: { key: string | Buffer; cert: string | Buffer } | undefined;
  /**
   * Whether an envelope recipient is taken, answered at RCPT TO: only a mailbox here is, so
   * nothing is ever relayed. A refusal carries its reply (550 no such mailbox, 452 full, …);
   * `unknown` marks a recipient that is no mailbox at all, which counts towards
   * maxUnknownRecipients.
   */
  checkRecipient(address: string, remote: string | null): Promise<RecipientReply>;
  /** Hands over one received message (via 'SMTP', raw bytes, envelope recipients lowercased, remote address). */
  deliver(mail: SmtpInboundMail): Promise<{ ok: true } | { ok: false; code: number; message: string }>;
  /**
   * A message refused for its size in DATA, with its envelope and the bytes counted: recorded as
   * a refused attempt the mailboxes' owners see (nothing of it was kept).
   */
  oversized?(mail: Omit<SmtpInboundMail, 'raw'> & { raw: null }): Promise<unknown>;
  logger: { warn(obj: object, msg: string): void; debug?(obj: object, msg: string): void };
  /** Overrides of the connection limits (tests); the defaults are SMTP_RECEIVER_LIMITS. */
  limits?: Partial<SmtpReceiverLimits> | undefined;
}

export type RecipientReply = { ok: true } | { ok: false; code: number; message: string; unknown: boolean };

export interface SmtpReceiver {
  port: number;
  close(): Promise<void>;
}

export interface SmtpReceiverLimits {
  /** Envelope recipients per message; the next one is answered 452 4.5.3 (the client sends it again later). */
  maxRecipients: number;
  /** Connections at once; one more is answered 421 and closed. */
  maxClients: number;
  /** Connections at once from one address; one more is answered 421 and closed. */
  maxClientsPerAddress: number;
  /**
   * Recipients that are no mailbox, per connection: the next one ends the connection (421).
   * Guessing addresses one RCPT at a time is how mailbox addresses are harvested.
   */
  maxUnknownRecipients: number;
  /**
   * Refused recipients of any kind (no mailbox, full, closed), per connection: the next refusal
   * ends the connection (421), so a sender cannot keep a slot by naming refused mailboxes.
   */
  maxRefusedRecipients: number;
  /** The longest a connection may last, however busy; then it is ended (421) between messages. */
  sessionMs: number;
  /**
   * The longest one message's DATA may take (issue 40): a sender trickling a few bytes within
   * every socket timeout would otherwise hold its slot for the whole session. 2 MiB in two
   * minutes is 17 KB/s, far below any real sender.
   */
  dataMs: number;
  /** Idle time allowed while the client owes us input. */
  socketTimeoutMs: number;
  /** How long a recipient lookup may take before the client is told to try later (451). */
  lookupTimeoutMs: number;
  /** How long close() waits for deliveries under way before it ends their connections. */
  closeGraceMs: number;
}

export const SMTP_RECEIVER_LIMITS: SmtpReceiverLimits = {
  maxRecipients: 20,
  maxClients: 100,
  maxClientsPerAddress: 10,
  maxUnknownRecipients: 5,
  maxRefusedRecipients: 20,
  sessionMs: 10 * 60_000,
  dataMs: 2 * 60_000,
  socketTimeoutMs: 60_000,
  lookupTimeoutMs: 30_000,
  closeGraceMs: 10_000,
};

/** Socket and TLS errors a public port sees all day (scanners, dropped clients): logged at debug only. */
const ROUTINE_ERROR_CODES = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_HTTP_REQUEST',
  'ERR_STREAM_PREMATURE_CLOSE',
  'ETLS',
  'ESOCKET',
]);

export async function startSmtpReceiver(opts: SmtpReceiverOptions): Promise<SmtpReceiver> {
  const limits = { ...SMTP_RECEIVER_LIMITS, ...opts.limits };
  const debug = (obj: object, msg: string) => opts.logger.debug?.(obj, msg);
  /** Deliveries under way, by session id: close() lets them answer before ending their connection. */
  const delivering = new Map<string, Promise<unknown>>();
  let closing = false;
  /** Connections taken (onConnect said yes), by session id: their address and deadline timer. */
  const sessions = new Map<
    string,
    { address: string; deadline: NodeJS.Timeout; unknown: number; refused: number }
  >();
  const perAddress = new Map<string, number>();

  const disabledCommands = ['AUTH', 'XCLIENT', 'XFORWARD', 'WIZ', 'SHELL', 'KILL'];
  if (!opts.tls) disabledCommands.push('STARTTLS');

  const server = new SMTPServer({
    name: opts.name,
    // Its own logger stays silent: it logs addresses and commands at info. Ours gets what matters.
    logger: false,
    // No accounts here: AUTH is neither advertised nor accepted, and never required.
    authOptional: true,
    disabledCommands,
    ...(opts.tls ? { key: opts.tls.key, cert: opts.tls.cert } : {}),
    hideSTARTTLS: !opts.tls,
    // The reverse lookup of the client's address would be a DNS query out of this process.
    disableReverseLookup: true,
    size: opts.maxBytes,
    hideSize: false,
    // Over the limit is answered 552 5.3.4 whatever the handler says (the handler delivers nothing).
    rejectOversized: true,
    hideENHANCEDSTATUSCODES: false,
    maxRecipients: limits.maxRecipients,
    maxClients: limits.maxClients,
    socketTimeout: limits.socketTimeoutMs,
    closeTimeout: limits.closeGraceMs,
    useXClient: false,
    useXForward: false,
    useProxy: false,

    onConnect(session, callback) {
      const address = session.remoteAddress || 'unknown';
      const open = perAddress.get(address) ?? 0;
      if (open >= limits.maxClientsPerAddress) {
        debug({ session: session.id, open }, 'smtp: too many connections from one address');
        return callback(replyError(421, 'Too many connections from your address, try again later'));
      }
      perAddress.set(address, open + 1);
      const deadline = setTimeout(() => void endSession(session.id), limits.sessionMs);
      deadline.unref();
      sessions.set(session.id, { address, deadline, unknown: 0, refused: 0 });
      callback();
    },

    onClose(session) {
      const taken = sessions.get(session.id);
      if (!taken) return;
      sessions.delete(session.id);
      clearTimeout(taken.deadline);
      const left = (perAddress.get(taken.address) ?? 1) - 1;
      if (left > 0) perAddress.set(taken.address, left);
      else perAddress.delete(taken.address);
    },

    onRcptTo(address, session, callback) {
      const recipient = address.address.toLowerCase();
      withTimeout(opts.checkRecipient(recipient, session.remoteAddress || null), limits.lookupTimeoutMs).then(
        (reply) => {
          debug({ session: session.id, recipient, ok: reply.ok }, 'smtp: recipient checked');
          if (reply.ok) return callback();
          const taken = sessions.get(session.id);
          if (reply.unknown && taken && ++taken.unknown > limits.maxUnknownRecipients) {
            return callback(replyError(421, 'Too many unknown recipients, closing'));
          }
          if (taken && ++taken.refused > limits.maxRefusedRecipients) {
            return callback(replyError(421, 'Too many refused recipients, closing'));
          }
          callback(replyError(reply.code, reply.message));
        },
        (err: unknown) => {
          opts.logger.warn(
            { session: session.id, err: loggableError(err) },
            'smtp: recipient lookup failed; answered 451',
          );
          callback(replyError(451, 'Cannot check the recipient now, try again later'));
        },
      );
    },

    onData(stream, session, callback) {
      const slow = setTimeout(() => {
        debug({ session: session.id }, 'smtp: DATA time limit reached');
        for (const connection of server.connections) {
          if (connection.session.id === session.id) {
            endConnection(connection, 'Message took too long to send, closing');
          }
        }
      }, limits.dataMs);
      slow.unref();
      readBounded(stream, opts.maxBytes).then(
        (read) => {
          clearTimeout(slow);
          if (read.aborted) return callback(replyError(451, 'Message not received in full'));
          if (read.oversized) {
            // rejectOversized answers 552 5.3.4 itself; this reply only stands if it did not.
            debug({ session: session.id, bytes: read.size }, 'smtp: message over the size limit refused');
            // Recorded before the reply, so the owner's view already holds it when the sender is told.
            const { raw: _none, ...envelope } = inboundMail(session, Buffer.alloc(0));
            const size = Math.max(read.size, opts.maxBytes + 1);
            void Promise.resolve(opts.oversized?.({ ...envelope, raw: null, size }))
              .catch((err: unknown) => {
                opts.logger.warn(
                  { session: session.id, err: loggableError(err) },
                  'smtp: an oversized message could not be recorded',
                );
              })
              .then(() =>
                callback(replyError(552, `Message exceeds the fixed maximum size ${opts.maxBytes}`)),
              );
            return;
          }
          // deliverOne never rejects: whatever deliver does ends in a reply.
          const delivery = deliverOne(inboundMail(session, read.raw), session.id);
          delivering.set(session.id, delivery);
          void delivery.then((reply) => {
            delivering.delete(session.id);
            callback(reply.error, reply.message);
          });
        },
        () => {
          clearTimeout(slow);
          callback(replyError(451, 'Message not received in full'));
        },
      );
    },
  });

  /** The session deadline: the connection ends now, or once the message it is delivering has its reply. */
  async function endSession(sessionId: string): Promise<void> {
    await delivering.get(sessionId);
    for (const connection of server.connections) {
      if (connection.session.id === sessionId) {
        debug({ session: sessionId }, 'smtp: session time limit reached');
        endConnection(connection, 'Session time limit reached, closing');
      }
    }
  }

  async function deliverOne(
    mail: SmtpInboundMail,
    sessionId: string,
  ): Promise<{ error: ReplyError | null; message?: string }> {
    try {
      const result = await opts.deliver(mail);
      const reply = deliveryReply(result);
      debug(
        {
          session: sessionId,
          recipients: mail.recipients,
          bytes: mail.size,
          code: reply.error?.responseCode ?? 250,
        },
        'smtp: message handed over',
      );
      return reply;
    } catch (err) {
      opts.logger.warn(
        { session: sessionId, bytes: mail.size, err: loggableError(err) },
        'smtp: delivery failed; answered 451',
      );
      return { error: replyError(451, 'Temporary failure, try again later') };
    }
  }

  let listening = false;
  server.on('error', (err: Error & { code?: unknown }) => {
    // Before listening, the error is start's own refusal (below); after, it is one connection's.
    if (!listening) return;
    const code = typeof err.code === 'string' ? err.code : undefined;
    const entry = { code, message: err.message.slice(0, 200) };
    if (closing || (code && (ROUTINE_ERROR_CODES.has(code) || code.startsWith('ERR_SSL')))) {
      debug(entry, 'smtp: connection error');
    } else {
      opts.logger.warn(entry, 'smtp: connection error');
    }
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.server.once('error', onError);
    server.listen(opts.port, opts.host, () => {
      server.server.off('error', onError);
      listening = true;
      resolve();
    });
  });
  const address = server.server.address();
  const port = address && typeof address === 'object' ? address.port : opts.port;

  let closed: Promise<void> | null = null;
  function close(): Promise<void> {
    closed ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      // Idle connections and ones still sending go now (421: the client tries again later);
      // one whose message is being delivered gets its reply first, within the grace time.
      for (const connection of [...server.connections]) {
        if (!delivering.has(connection.session.id)) endConnection(connection);
      }
      if (delivering.size > 0) {
        await Promise.race([Promise.allSettled([...delivering.values()]), delay(limits.closeGraceMs)]);
      }
      for (const connection of [...server.connections]) endConnection(connection);
      await stopped;
    })();
    return closed;
  }

  return { port, close };
}

type Connection = SMTPServer['connections'] extends Set<infer C> ? C : never;

function endConnection(connection: Connection, text = 'Service shutting down, try again later'): void {
  connection.send(421, text);
  connection.close();
}

function inboundMail(session: SMTPServerSession, raw: Buffer): SmtpInboundMail {
  const { mailFrom, rcptTo } = session.envelope;
  return {
    via: 'SMTP',
    recipients: [...new Set(rcptTo.map((r) => r.address.toLowerCase()))],
    envelopeFrom: mailFrom ? mailFrom.address || null : null,
    raw,
    processed: null,
    size: raw.length,
    providerDeliveryId: null,
    remote: session.remoteAddress || null,
  };
}

type BoundedRead =
  | { aborted: true }
  | { aborted: false; oversized: true; size: number }
  | { aborted: false; oversized: false; raw: Buffer; size: number };

/** Reads the DATA stream to its end, keeping at most maxBytes: past the limit it only counts. */
function readBounded(stream: SMTPServerDataStream, maxBytes: number): Promise<BoundedRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (read: BoundedRead) => {
      if (settled) return;
      settled = true;
      resolve(read);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => {
      if (size > maxBytes || stream.sizeExceeded) settle({ aborted: false, oversized: true, size });
      else settle({ aborted: false, oversized: false, raw: Buffer.concat(chunks, size), size });
    });
    // The client went away mid-message: smtp-server destroys the stream (with an error when
    // someone listens for one), and there is nobody left to answer.
    stream.once('error', () => settle({ aborted: true }));
    stream.once('close', () => settle({ aborted: true }));
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`No answer within ${ms} ms`)), ms);
    timer.unref();
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
