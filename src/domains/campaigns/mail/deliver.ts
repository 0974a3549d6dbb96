import { createHash } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { newId } from '../../../kernel/ids.ts';
import { MailRefused, type ParsedMail } from '../../../parsing/index.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import type { InboundMail, MailRefusal, ProcessedMail } from '../../mail/types.ts';
import { appendEvent } from '../ledger/ledger.ts';
import { campaigns } from '../tables.ts';
import { MAIL_LIMITS, type MailboxRow, mailboxAt, usageOf } from './mailbox.ts';
import { mailboxes, mailDeliveryAttempts, mailMessages, mailProviderDeliveries } from './tables.ts';

/**
 * deliverMail: the one use case every way in ends in (the built-in SMTP receiver, the Mailgun and
 * Postal callbacks). Per recipient mailbox, in one transaction: refuse what may not be stored
 * (closed campaign, full mailbox, a replayed provider delivery), store a duplicate once, store the
 * sanitised text and attachment metadata, mark delivery VERIFIED, log the attempt, and wake the
 * mailbox's waiters on every replica. Refusals store nothing but the attempt.
 */

/** Recipients of one message, at most (the SMTP receiver's limit too). */
const MAX_RECIPIENTS = 20;

/** The NOTIFY channel of campaign_mail_wait; the payload is the campaign id. */
export const MAIL_CHANNEL = 'cairn_mail';

/** What deliverMail needs of the parser pool (ParserPool is one). */
export interface MailParser {
  parseMail(raw: Buffer): Promise<ParsedMail>;
  parseProcessedMail(p: ProcessedMail): Promise<ParsedMail>;
}

export interface DeliveryOutcome {
  recipient: string;
  outcome: 'ACCEPTED' | 'DUPLICATE' | 'REFUSED';
  reason?: MailRefusal;
  campaign_id?: string;
  mail_id?: string;
}

export async function deliverMail(
  database: Database,
  parser: MailParser,
  mail: InboundMail,
  now: () => Date,
): Promise<DeliveryOutcome[]> {
  const recipients = [...new Set(mail.recipients.map((r) => r.trim().toLowerCase()).filter(Boolean))];
  // As the SMTP receiver: at most 20 recipients a message (a provider's post says as many as it likes).
  if (recipients.length > MAX_RECIPIENTS) {
    return [await refuse(database.db, mail, `${recipients.length} recipients`, null, 'MALFORMED', now())];
  }
  const targets: Array<{ recipient: string; box: MailboxRow | null }> = [];
  const seen = new Set<string>();
  for (const recipient of recipients) {
    const box = await mailboxAt(database.db, recipient);
    // Two addresses of one campaign would store the mail twice: once per mailbox.
    if (box && seen.has(box.campaignId)) continue;
    if (box) seen.add(box.campaignId);
    targets.push({ recipient, box });
  }
  const refuseAll = (reason: MailRefusal) =>
    Promise.all(
      targets.map((t) => refuse(database.db, mail, t.recipient, t.box?.campaignId ?? null, reason, now())),
    );

  if (targets.length === 0) return [];
  if (mail.size > MAIL_LIMITS.payloadBytes) return refuseAll('TOO_LARGE');
  // A provider's delivery is taken once, install-wide, before anything is read or stored.
  if (
    mail.providerDeliveryId &&
    !(await firstSighting(database.db, mail.via, mail.providerDeliveryId, now()))
  ) {
    return refuseAll('REPLAYED');
  }
  const known = targets.filter((t) => t.box);
  const unknown = await Promise.all(
    targets
      .filter((t) => !t.box)
      .map((t) => refuse(database.db, mail, t.recipient, null, 'UNKNOWN_MAILBOX', now())),
  );
  if (known.length === 0) return unknown;

  // Parsing is bounded work in the pool, before any transaction is open.
  let parsed: ParsedMail;
  try {
    if (mail.raw) parsed = await parser.parseMail(mail.raw);
    else if (mail.processed) parsed = await parser.parseProcessedMail(mail.processed);
    else throw new Error('no message');
  } catch (err) {
    // A busy or closed pool is not the mail's fault: it propagates, and the sender retries.
    // A parse that ran out of time may have met a loaded machine: the sender retries that too.
    if (!(err instanceof MailRefused) || err.code === 'PARSE_TIMEOUT') throw err;
    const reason: MailRefusal = err.code === 'TOO_LARGE' ? 'TOO_LARGE' : 'MALFORMED';
    return [
      ...unknown,
      ...(await Promise.all(
        known.map((t) => refuse(database.db, mail, t.recipient, t.box?.campaignId ?? null, reason, now())),
      )),
    ];
  }
  // What the message says, the same way for every way in: relays add Received and DKIM headers,
  // so the raw bytes of one message differ by path; its content and attachments do not.
  const bodyHash = createHash('sha256')
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

  const stored: DeliveryOutcome[] = [];
  for (const t of known) {
    const box = t.box as MailboxRow;
    try {
      stored.push(
        await database.transaction((tx) => store(tx, box, t.recipient, mail, parsed, bodyHash, now())),
      );
    } catch (err) {
      // A value the database will not hold (SQLSTATE class 22) is the mail's own fault: it is
      // refused and recorded, not retried forever.
      if (!isDataError(err)) throw err;
      stored.push(await refuse(database.db, mail, t.recipient, box.campaignId, 'MALFORMED', now()));
    }
  }
  return [...unknown, ...stored];
}

async function store(
  ex: Executor,
  box: MailboxRow,
  recipient: string,
  mail: InboundMail,
  parsed: ParsedMail,
  bodyHash: string,
  now: Date,
): Promise<DeliveryOutcome> {
  // One delivery at a time per mailbox: the limits below stay true until this commits.
  const [locked] = await ex
    .select()
    .from(mailboxes)
    .where(eq(mailboxes.campaignId, box.campaignId))
    .for('update');
  const [campaign] = await ex
    .select({ status: campaigns.status })
    .from(campaigns)
    .where(eq(campaigns.id, box.campaignId));
  if (!locked || campaign?.status !== 'ACTIVE')
    return refuse(ex, mail, recipient, box.campaignId, 'CAMPAIGN_CLOSED', now);
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
    await attempt(ex, mail, recipient, box.campaignId, 'DUPLICATE', null, duplicate.id, now);
    return { recipient, outcome: 'DUPLICATE', campaign_id: box.campaignId, mail_id: duplicate.id };
  }
  const usage = await usageOf(ex, box.campaignId);
  if (usage.messages + 1 > locked.messageLimit || usage.bytes + mail.size > locked.byteLimit) {
    if (!locked.fullNoticeAt) {
      // Told once per filling: the owner sees it in the console and on the ledger.
      await ex.update(mailboxes).set({ fullNoticeAt: now }).where(eq(mailboxes.campaignId, box.campaignId));
      await appendEvent(
        ex,
        box.campaignId,
        {
          kind: 'MAILBOX_FULL',
          actor: { role: 'SYSTEM' },
          payload: {
            messages: usage.messages,
            bytes: usage.bytes,
            max_messages: locked.messageLimit,
            max_bytes: locked.byteLimit,
          },
        },
        now,
      );
    }
    return refuse(ex, mail, recipient, box.campaignId, 'MAILBOX_FULL', now);
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
  if (locked.deliveryState !== 'VERIFIED') {
    await ex
      .update(mailboxes)
      .set({ deliveryState: 'VERIFIED', deliveryVerifiedAt: now })
      .where(eq(mailboxes.campaignId, box.campaignId));
  }
  await attempt(ex, mail, recipient, box.campaignId, 'ACCEPTED', null, mailId, now);
  // Transactional: waiters on every replica wake once this commits.
  await ex.execute(sql`select pg_notify(${MAIL_CHANNEL}, ${box.campaignId})`);
  return { recipient, outcome: 'ACCEPTED', campaign_id: box.campaignId, mail_id: mailId };
}

/** Claims a provider delivery id; false when it was seen before. */
async function firstSighting(ex: Executor, via: string, deliveryId: string, now: Date): Promise<boolean> {
  const rows = await ex
    .insert(mailProviderDeliveries)
    .values({ via, deliveryId, seenAt: now })
    .onConflictDoNothing()
    .returning({ id: mailProviderDeliveries.deliveryId });
  return rows.length === 1;
}

function isDataError(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('22')) return true;
  }
  return false;
}

async function refuse(
  ex: Executor,
  mail: InboundMail,
  recipient: string,
  campaignId: string | null,
  reason: MailRefusal,
  now: Date,
): Promise<DeliveryOutcome> {
  await attempt(ex, mail, recipient, campaignId, 'REFUSED', reason, null, now);
  return { recipient, outcome: 'REFUSED', reason, ...(campaignId ? { campaign_id: campaignId } : {}) };
}

/** Every attempt is kept, accepted or not: the owner sees failures and retries in the console. */
async function attempt(
  ex: Executor,
  mail: InboundMail,
  recipient: string,
  campaignId: string | null,
  outcome: 'ACCEPTED' | 'DUPLICATE' | 'REFUSED',
  reason: MailRefusal | null,
  mailId: string | null,
  now: Date,
): Promise<void> {
  await ex.insert(mailDeliveryAttempts).values({
    id: newId('mat', now),
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
}

/** Whether an SMTP recipient may be accepted at RCPT TO: a mailbox of an active campaign. */
export async function acceptsRecipient(database: Database, address: string): Promise<boolean> {
  const box = await mailboxAt(database.db, address.trim().toLowerCase());
  if (!box) return false;
  const [campaign] = await database.db
    .select({ status: campaigns.status })
    .from(campaigns)
    .where(eq(campaigns.id, box.campaignId));
  return campaign?.status === 'ACTIVE';
}
