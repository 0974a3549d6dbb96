import { createHash } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { newId } from '../../kernel/ids.ts';
import type { ParsedMail } from '../../parsing/index.ts';
import type { Executor } from '../../storage/database.ts';
import { appendEvent, campaignStatusOf } from '../campaigns/index.ts';
import { MAIL_LIMITS } from './limits.ts';
import { type MailboxRow, usageOf } from './mailbox.ts';
import { mailboxes, mailDeliveryAttempts, mailMessages } from './tables.ts';
import type { InboundMail, MailRefusal } from './types.ts';

/**
 * Storing a mail that was read, in one mailbox's transaction, and the attempts log: what every
 * way in ends in, whether the mail was read as it arrived (deliver.ts) or later (deferred.ts).
 */

/** The NOTIFY channel of campaign_mail_wait; the payload is the campaign id. */
export const MAIL_CHANNEL = 'cairn_mail';

export interface DeliveryOutcome {
  recipient: string;
  /** DEFERRED: taken, to be read later (deferred.ts); the sender is done with it. */
  outcome: 'ACCEPTED' | 'DUPLICATE' | 'REFUSED' | 'DEFERRED';
  reason?: MailRefusal;
  campaign_id?: string;
  mail_id?: string;
}

/**
 * What the message says, the same way for every way in: relays add Received and DKIM headers,
 * so the raw bytes of one message differ by path; its content and attachments do not.
 */
export function bodyHashOf(parsed: ParsedMail): string {
  return createHash('sha256')
    .update(
      JSON.stringify([
        parsed.from,
        parsed.subject,
        parsed.date,
        parsed.text,
        parsed.attachments.map((a) => [a.name, a.size, a.sha256]),
      ]),
    )
    .digest('hex');
}

/**
 * Stores a read mail in one mailbox (its transaction). `attemptId` is the DEFERRED attempt of a
 * mail read later: it becomes this delivery's outcome rather than a second attempt being made.
 */
export async function store(
  ex: Executor,
  box: Pick<MailboxRow, 'campaignId'>,
  recipient: string,
  mail: Pick<InboundMail, 'via' | 'remote' | 'providerDeliveryId' | 'size'>,
  parsed: ParsedMail,
  bodyHash: string,
  now: Date,
  attemptId?: string,
): Promise<DeliveryOutcome> {
  // One delivery at a time per mailbox: the limits below stay true until this commits.
  const [locked] = await ex
    .select()
    .from(mailboxes)
    .where(eq(mailboxes.campaignId, box.campaignId))
    .for('update');
  const status = await campaignStatusOf(ex, box.campaignId);
  if (!locked || status !== 'ACTIVE') {
    const why = status === 'STOPPING' ? 'CAMPAIGN_STOPPED' : 'CAMPAIGN_CLOSED';
    return refuse(ex, mail, recipient, box.campaignId, why, now, attemptId);
  }
  const [duplicate] = await ex
    .select({ id: mailMessages.id })
    .from(mailMessages)
    .where(
      and(
        eq(mailMessages.campaignId, box.campaignId),
        sql`coalesce(${mailMessages.messageIdHeader}, '') = ${parsed.messageId ?? ''}`,
        eq(mailMessages.bodyHash, bodyHash),
      ),
    );
  if (duplicate) {
    await attempt(ex, mail, recipient, box.campaignId, 'DUPLICATE', null, duplicate.id, now, attemptId);
    return { recipient, outcome: 'DUPLICATE', campaign_id: box.campaignId, mail_id: duplicate.id };
  }
  const usage = await usageOf(ex, box.campaignId);
  if (usage.messages + 1 > locked.messageLimit || usage.bytes + mail.size > locked.byteLimit) {
    await tellOwnerFull(ex, locked, usage, now);
    return refuse(ex, mail, recipient, box.campaignId, 'MAILBOX_FULL', now, attemptId);
  }
  const mailId = newId('mail', now);
  await ex.insert(mailMessages).values({
    id: mailId,
    campaignId: box.campaignId,
    via: mail.via,
    messageIdHeader: parsed.messageId,
    bodyHash,
    fromAddress: parsed.from,
    toAddress: parsed.to,
    subject: parsed.subject,
    sentAt: parsed.date ? new Date(parsed.date) : null,
    text: parsed.text.slice(0, MAIL_LIMITS.textChars),
    size: mail.size,
    attachments: parsed.attachments,
    flags: parsed.truncated ? [...parsed.flags, 'TRUNCATED'] : parsed.flags,
    instructionSpans: parsed.instructionSpans,
    receivedAt: now,
  });
  if (locked.deliveryState !== 'VERIFIED' || locked.fullNoticeAt) {
    // Mail fitted again: the next refusal for lack of room is a new filling, told anew.
    await ex
      .update(mailboxes)
      .set({
        deliveryState: 'VERIFIED',
        deliveryVerifiedAt: locked.deliveryVerifiedAt ?? now,
        fullNoticeAt: null,
      })
      .where(eq(mailboxes.campaignId, box.campaignId));
  }
  await attempt(ex, mail, recipient, box.campaignId, 'ACCEPTED', null, mailId, now, attemptId);
  // Transactional: waiters on every replica wake once this commits.
  await ex.execute(sql`select pg_notify(${MAIL_CHANNEL}, ${box.campaignId})`);
  return { recipient, outcome: 'ACCEPTED', campaign_id: box.campaignId, mail_id: mailId };
}

/**
 * Tells the owner the mailbox refuses mail for lack of room: `full_notice_at` and a MAILBOX_FULL
 * ledger event, once per filling (the conditional update makes it once across replicas; an
 * accepted mail clears it).
 */
export async function tellOwnerFull(
  ex: Executor,
  box: MailboxRow,
  usage: { messages: number; bytes: number },
  now: Date,
): Promise<void> {
  const first = await ex
    .update(mailboxes)
    .set({ fullNoticeAt: now })
    .where(and(eq(mailboxes.campaignId, box.campaignId), isNull(mailboxes.fullNoticeAt)))
    .returning({ campaignId: mailboxes.campaignId });
  if (first.length === 0) return;
  await appendEvent(
    ex,
    box.campaignId,
    {
      kind: 'MAILBOX_FULL',
      actor: { role: 'SYSTEM' },
      payload: {
        messages: usage.messages,
        bytes: usage.bytes,
        max_messages: box.messageLimit,
        max_bytes: box.byteLimit,
      },
    },
    now,
  );
}

/** What an attempt records of the delivery: how and whence it came, and its size when known. */
export type AttemptSource = Pick<InboundMail, 'via' | 'remote' | 'providerDeliveryId'> & {
  size: number | null;
};

export async function refuse(
  ex: Executor,
  mail: AttemptSource,
  recipient: string,
  campaignId: string | null,
  reason: MailRefusal,
  now: Date,
  attemptId?: string,
): Promise<DeliveryOutcome> {
  await attempt(ex, mail, recipient, campaignId, 'REFUSED', reason, null, now, attemptId);
  return { recipient, outcome: 'REFUSED', reason, ...(campaignId ? { campaign_id: campaignId } : {}) };
}

/**
 * Every attempt is kept, accepted or not: the owner sees failures and retries in the console. A
 * deferred mail's attempt (`attemptId`) is given its outcome in place, when it was read.
 */
export async function attempt(
  ex: Executor,
  mail: AttemptSource,
  recipient: string,
  campaignId: string | null,
  outcome: 'ACCEPTED' | 'DUPLICATE' | 'REFUSED' | 'DEFERRED',
  reason: MailRefusal | null,
  mailId: string | null,
  now: Date,
  attemptId?: string,
): Promise<string> {
  if (attemptId) {
    await ex
      .update(mailDeliveryAttempts)
      .set({ outcome, reason, mailId })
      .where(eq(mailDeliveryAttempts.id, attemptId));
    return attemptId;
  }
  const id = newId('mat', now);
  await ex.insert(mailDeliveryAttempts).values({
    id,
    campaignId,
    via: mail.via,
    recipient,
    remote: mail.remote,
    size: mail.size,
    outcome,
    reason,
    mailId,
    providerDeliveryId: mail.providerDeliveryId,
    createdAt: now,
  });
  return id;
}

/** A value the database will not hold (SQLSTATE class 22): the mail's own fault, refused, never retried. */
export function isDataError(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('22')) return true;
  }
  return false;
}
