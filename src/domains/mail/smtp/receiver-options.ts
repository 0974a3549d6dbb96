/**
 * The SMTP receiver's contract: the mail it hands over, the options it is started with (the
 * recipient check, the delivery and the oversized record it calls back), and the connection
 * limits it enforces with their defaults (SMTP_RECEIVER_LIMITS).
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
