import { createHash } from 'node:crypto';
import { and, eq, isNull, sql } from 'drizzle-orm';
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
  /** The receiving domain configured now (CAIRN_MAIL_DOMAIN): see mailboxAt. */
  domain: string,
): Promise<DeliveryOutcome[]> {
  const recipients = [...new Set(mail.recipients.map((r) => r.trim().toLowerCase()).filter(Boolean))];
  // As the SMTP receiver: at most 20 recipients a message (a provider's post says as many as it likes).
  if (recipients.length > MAX_RECIPIENTS) {
    return [await refuse(database.db, mail, `${recipients.length} recipients`, null, 'MALFORMED', now())];
  }
  const targets: Array<{ recipient: string; box: MailboxRow | null }> = [];
  const seen = new Set<string>();
  for (const recipient of recipients) {
    const box = await mailboxAt(database.db, recipient, domain);
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
  if (!locked || campaign?.status !== 'ACTIVE') {
    const why = campaign?.status === 'STOPPING' ? 'CAMPAIGN_STOPPED' : 'CAMPAIGN_CLOSED';
    return refuse(ex, mail, recipient, box.campaignId, why, now);
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
    await attempt(ex, mail, recipient, box.campaignId, 'DUPLICATE', null, duplicate.id, now);
    return { recipient, outcome: 'DUPLICATE', campaign_id: box.campaignId, mail_id: duplicate.id };
  }
  const usage = await usageOf(ex, box.campaignId);
  if (usage.messages + 1 > locked.messageLimit || usage.bytes + mail.size > locked.byteLimit) {
    await tellOwnerFull(ex, locked, usage, now);
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
  await attempt(ex, mail, recipient, box.campaignId, 'ACCEPTED', null, mailId, now);
  // Transactional: waiters on every replica wake once this commits.
  await ex.execute(sql`select pg_notify(${MAIL_CHANNEL}, ${box.campaignId})`);
  return { recipient, outcome: 'ACCEPTED', campaign_id: box.campaignId, mail_id: mailId };
}

/**
 * Tells the owner the mailbox refuses mail for lack of room: `full_notice_at` and a MAILBOX_FULL
 * ledger event, once per filling (the conditional update makes it once across replicas; an
 * accepted mail clears it).
 */
async function tellOwnerFull(
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

/** What an attempt records of the delivery: how and whence it came, and its size when known. */
type AttemptSource = Pick<InboundMail, 'via' | 'remote' | 'providerDeliveryId'> & { size: number | null };

async function refuse(
  ex: Executor,
  mail: AttemptSource,
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
  mail: AttemptSource,
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

export type RecipientVerdict =
  | 'ACCEPT'
  | 'UNKNOWN_MAILBOX'
  | 'CAMPAIGN_CLOSED'
  | 'CAMPAIGN_STOPPED'
  | 'MAILBOX_FULL';

/**
 * Whether the SMTP receiver takes a recipient at RCPT TO: a mailbox of an active campaign with
 * room for at least one more mail. Deciding per recipient there, rather than after DATA, means a
 * message to several mailboxes is never half lost: each refused recipient has its own reply, and
 * the sender's server keeps the mail for it. A refusal of a real mailbox is recorded as an
 * attempt its owner sees; one of no mailbox is not (nobody's to see, and a public port hears
 * guesses all day).
 */
export async function checkRecipient(
  database: Database,
  address: string,
  remote: string | null,
  now: Date,
  domain: string,
): Promise<RecipientVerdict> {
  const recipient = address.trim().toLowerCase();
  const box = await mailboxAt(database.db, recipient, domain);
  if (!box) return 'UNKNOWN_MAILBOX';
  const [campaign] = await database.db
    .select({ status: campaigns.status })
    .from(campaigns)
    .where(eq(campaigns.id, box.campaignId));
  const usage = await usageOf(database.db, box.campaignId);
  const verdict: RecipientVerdict =
    campaign?.status === 'STOPPING'
      ? 'CAMPAIGN_STOPPED'
      : campaign?.status !== 'ACTIVE'
        ? 'CAMPAIGN_CLOSED'
        : usage.messages >= box.messageLimit || usage.bytes >= box.byteLimit
          ? 'MAILBOX_FULL'
          : 'ACCEPT';
  if (verdict === 'ACCEPT') return verdict;
  await database.transaction(async (tx) => {
    if (verdict === 'MAILBOX_FULL') await tellOwnerFull(tx, box, usage, now);
    // The message has not been sent yet at RCPT TO: its size is unknown.
    const source = { via: 'SMTP', remote, size: null, providerDeliveryId: null } as const;
    await refuse(tx, source, recipient, box.campaignId, verdict, now);
  });
  return verdict;
}
