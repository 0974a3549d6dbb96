import { MailRefused, type ParsedMail } from '../../parsing/index.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { campaignStatusOf } from '../campaigns/index.ts';
import { deferMail, isDeferrable } from './deferred.ts';
import { MAIL_LIMITS } from './limits.ts';
import { bodyHashOf, type DeliveryOutcome, isDataError, refuse, store, tellOwnerFull } from './mail-store.ts';
import { type MailboxRow, mailboxAt, usageOf } from './mailbox.ts';
import { mailProviderDeliveries } from './tables.ts';
import type { InboundMail, MailRefusal, ProcessedMail } from './types.ts';

export { type DeliveryOutcome, MAIL_CHANNEL } from './mail-store.ts';

/**
 * deliverMail: the one use case every way in ends in (the built-in SMTP receiver, the Mailgun and
 * Postal callbacks). Per recipient mailbox, in one transaction: refuse what may not be stored
 * (closed campaign, full mailbox, a replayed provider delivery), store a duplicate once, store the
 * sanitised text and attachment metadata, mark delivery VERIFIED, log the attempt, and wake the
 * mailbox's waiters on every replica. Refusals store nothing but the attempt. Mail the parser
 * cannot read now (full, or out of time) is taken and read later (deferred.ts).
 */

/** Recipients of one message, at most (the SMTP receiver's limit too). */
const MAX_RECIPIENTS = 20;

/** What deliverMail needs of the parser pool (ParserPool is one). */
export interface MailParser {
  parseMail(raw: Buffer): Promise<ParsedMail>;
  parseProcessedMail(p: ProcessedMail): Promise<ParsedMail>;
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
    // A full parser or a parse out of time is not the mail's fault, nor the sender's to retry:
    // the mail is taken and read later (deferred.ts, issue 40). A closed pool propagates (451).
    if (isDeferrable(err)) {
      const deferred = await Promise.all(
        known.map((t) => deferMail(database, mail, t.recipient, (t.box as MailboxRow).campaignId, now())),
      );
      return [...unknown, ...deferred];
    }
    if (!(err instanceof MailRefused)) throw err;
    const reason: MailRefusal = err.code === 'TOO_LARGE' ? 'TOO_LARGE' : 'MALFORMED';
    return [
      ...unknown,
      ...(await Promise.all(
        known.map((t) => refuse(database.db, mail, t.recipient, t.box?.campaignId ?? null, reason, now())),
      )),
    ];
  }
  const bodyHash = bodyHashOf(parsed);

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

/** Claims a provider delivery id; false when it was seen before. */
async function firstSighting(ex: Executor, via: string, deliveryId: string, now: Date): Promise<boolean> {
  const rows = await ex
    .insert(mailProviderDeliveries)
    .values({ via, deliveryId, seenAt: now })
    .onConflictDoNothing()
    .returning({ id: mailProviderDeliveries.deliveryId });
  return rows.length === 1;
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
  const status = await campaignStatusOf(database.db, box.campaignId);
  const usage = await usageOf(database.db, box.campaignId);
  const verdict: RecipientVerdict =
    status === 'STOPPING'
      ? 'CAMPAIGN_STOPPED'
      : status !== 'ACTIVE'
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
