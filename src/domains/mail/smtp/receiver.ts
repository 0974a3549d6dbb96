import { SMTPServer } from 'smtp-server';
import { loggableError } from '../../../logging.ts';
import { inboundMail, readBounded } from './message.ts';
import {
  SMTP_RECEIVER_LIMITS,
  type SmtpInboundMail,
  type SmtpReceiver,
  type SmtpReceiverOptions,
} from './receiver-options.ts';
import { deliveryReply, type ReplyError, replyError } from './replies.ts';

/**
 * The built-in SMTP receiver (issue 18): it takes mail for the campaign mailboxes here and hands
 * each message to `deliver`. It only receives: there is no AUTH (no accounts, nothing to relay
 * for), a recipient that is not a mailbox here is refused at RCPT TO, and nothing in this folder
 * opens a connection anywhere (the reverse DNS lookup of the client is off too).
 */

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
