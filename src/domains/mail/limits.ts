import type { PublishedLimit } from '../../kernel/limits.ts';
import { MAIL_PARSE_LIMITS } from '../../parsing/index.ts';

/** SPEC Limits (Mailbox): 1,000 messages and 20 MiB by default; nothing is deleted automatically. */
export const MAILBOX_DEFAULTS = { messages: 1_000, bytes: 20 * 1024 * 1024 } as const;
/** SPEC Limits: one delivery payload is at most 2 MiB; stored text at most 200,000 characters (parsing's). */
export const MAIL_LIMITS = {
  payloadBytes: MAIL_PARSE_LIMITS.deliveryBytes,
  textChars: MAIL_PARSE_LIMITS.storedTextChars,
} as const;

/** What `/v1/public/limits` publishes of mailboxes (the area's `limits`). */
export const PUBLISHED_MAIL_LIMITS: PublishedLimit[] = [
  {
    area: 'Mailbox',
    limit:
      'delivery payload 2 MiB; stored text 200,000 characters; default 1,000 messages and 20 MiB per mailbox; no automatic deletion; attachments metadata only',
    values: {
      delivery_bytes: MAIL_LIMITS.payloadBytes,
      stored_text_chars: MAIL_LIMITS.textChars,
      messages: MAILBOX_DEFAULTS.messages,
      bytes: MAILBOX_DEFAULTS.bytes,
    },
  },
];
