import type { ProcessedMailInput } from '../../parsing/index.ts';

/**
 * Plain types of the mail area (issue 18) that transports and parsers share: one inbound mail,
 * however it arrived, as the deliverMail use case takes it. Nothing here sends mail.
 */

/** How a mail reached Cairn. */
export type MailVia = 'SMTP' | 'MAILGUN' | 'POSTAL';

/** A mail handed to deliverMail: the raw RFC 5322 message, or a provider's processed fields. */
export interface InboundMail {
  via: MailVia;
  /** The envelope recipients (RCPT TO, or the provider's recipient field), lowercased. */
  recipients: string[];
  /** The envelope sender (MAIL FROM), if known. */
  envelopeFrom: string | null;
  /** The whole message as received, when the transport has it (SMTP, raw provider formats). */
  raw: Buffer | null;
  /** A provider's processed message, when it sends no raw MIME. */
  processed: ProcessedMail | null;
  /** Size in bytes as received (the 2 MiB limit is checked on it). */
  size: number;
  /** The provider's own id of this delivery (replay protection when it signs no timestamp). */
  providerDeliveryId: string | null;
  /** Where it came from (an IP address, or the provider's name), for the attempts log. */
  remote: string | null;
}

/** A provider's parsed message (Mailgun's fully parsed POST, Postal's processed JSON): parsing's shape. */
export type ProcessedMail = ProcessedMailInput;

/** Why an inbound mail was refused (recorded as a failed attempt; nothing stored). */
export type MailRefusal =
  | 'BAD_SIGNATURE'
  | 'STALE_TIMESTAMP'
  | 'REPLAYED'
  | 'UNKNOWN_MAILBOX'
  | 'CAMPAIGN_CLOSED'
  | 'CAMPAIGN_STOPPED'
  | 'MAILBOX_DISABLED'
  | 'MAILBOX_FULL'
  | 'TOO_LARGE'
  | 'MALFORMED';
