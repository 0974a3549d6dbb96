import { and, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import { mailDeliveryAttempts, mailProviderDeliveries } from './tables.ts';

const DAY = 86_400_000;

/**
 * How long delivery records are kept (docs/mail.md "Retention"). Mail itself is never deleted
 * automatically (SPEC Limits); what goes is the trail of attempts and the replay guard's memory,
 * which would otherwise grow with every post a public port or callback route hears.
 */
export const MAIL_RETENTION = {
  /** Attempts on a mailbox: its owner sees failures and retries for three months. */
  mailboxAttemptMs: 90 * DAY,
  /** Attempts that named no mailbox (bad signatures, unknown recipients): seen by nobody, kept a week. */
  unaddressedAttemptMs: 7 * DAY,
  /** A Mailgun token older than its 5-minute signature window can never be replayed. */
  mailgunDeliveryMs: DAY,
  /** Postal signs no timestamp, so its delivery ids are remembered as long as attempts are. */
  postalDeliveryMs: 90 * DAY,
} as const;

/** Deletes delivery records past their retention; safe on every replica at once (plain deletes). */
export async function sweepMail(ex: Executor, now: Date): Promise<Record<string, number>> {
  const before = (ms: number) => new Date(now.getTime() - ms);
  const mailboxAttempts = await ex
    .delete(mailDeliveryAttempts)
    .where(
      and(
        isNotNull(mailDeliveryAttempts.campaignId),
        lt(mailDeliveryAttempts.createdAt, before(MAIL_RETENTION.mailboxAttemptMs)),
      ),
    )
    .returning({ id: mailDeliveryAttempts.id });
  const unaddressed = await ex
    .delete(mailDeliveryAttempts)
    .where(
      and(
        isNull(mailDeliveryAttempts.campaignId),
        lt(mailDeliveryAttempts.createdAt, before(MAIL_RETENTION.unaddressedAttemptMs)),
      ),
    )
    .returning({ id: mailDeliveryAttempts.id });
  const mailgun = await ex
    .delete(mailProviderDeliveries)
    .where(
      and(
        eq(mailProviderDeliveries.via, 'MAILGUN'),
        lt(mailProviderDeliveries.seenAt, before(MAIL_RETENTION.mailgunDeliveryMs)),
      ),
    )
    .returning({ id: mailProviderDeliveries.deliveryId });
  const postal = await ex
    .delete(mailProviderDeliveries)
    .where(
      and(
        eq(mailProviderDeliveries.via, 'POSTAL'),
        lt(mailProviderDeliveries.seenAt, before(MAIL_RETENTION.postalDeliveryMs)),
      ),
    )
    .returning({ id: mailProviderDeliveries.deliveryId });
  return {
    mailbox_attempts: mailboxAttempts.length,
    unaddressed_attempts: unaddressed.length,
    mailgun_deliveries: mailgun.length,
    postal_deliveries: postal.length,
  };
}
