/**
 * A delivered message's bounds (SPEC Limits, Mailbox), enforced as it is parsed: the payload read
 * at all, and the stored text it is cut to. The mail area publishes them with its mailboxes' own.
 */
export const MAIL_PARSE_LIMITS = {
  deliveryBytes: 2 * 1024 * 1024,
  storedTextChars: 200_000,
} as const;
