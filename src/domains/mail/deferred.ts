import { and, asc, eq, inArray, lte, sql } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Clock } from '../../kernel/clock.ts';
import { newId } from '../../kernel/ids.ts';
import { withTenant } from '../../kernel/tenant.ts';
import { MailRefused, type ParsedMail, ParserBusy } from '../../parsing/index.ts';
import type { Database, Executor } from '../../storage/database.ts';
import { jobFailureLevel } from '../../storage/unavailable.ts';
import { attempt, bodyHashOf, type DeliveryOutcome, isDataError, refuse, store } from './mail-store.ts';
import { mailDeferred } from './tables.ts';
import type { InboundMail, MailRefusal, MailVia, ProcessedMail } from './types.ts';

/**
 * Mail read later (issue 40 item 2). A message whose parse found the parser full, or ran out of
 * time (a loaded machine, or a body built to be costly), is taken all the same: stored as
 * received beside a DEFERRED attempt, and the sender is answered 250 (or the provider 200)
 * instead of being told to try again, which a sender trickling costly mail would do forever.
 * A sweep on every replica reads due mail again in its sender's share of the parser, stores it as
 * any mail is stored (duplicates, a full mailbox, a closed campaign), gives the attempt its
 * outcome and wakes the mailbox's waiters. A mail still unreadable after the last try is refused
 * as MALFORMED, its bytes dropped. Until it is read nobody sees it but the owner, as an attempt.
 */

/** When each try after the first comes, after the one before (ms); one try per entry. */
const RETRY_AFTER_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000];
/** Mail read per sweep, per replica: each is one parser job (the sweep waits for them). */
const BATCH = 4;
/** How often a replica looks for due mail. */
const SWEEP_EVERY_MS = 2_500;

/** Whether a failed parse is to be tried again later rather than refused or told to the sender. */
export function isDeferrable(err: unknown): boolean {
  return err instanceof ParserBusy || (err instanceof MailRefused && err.code === 'PARSE_TIMEOUT');
}

/** Takes a mail for one mailbox, to be read later: its DEFERRED attempt and the bytes, in one transaction. */
export async function deferMail(
  database: Database,
  mail: InboundMail,
  recipient: string,
  campaignId: string,
  now: Date,
): Promise<DeliveryOutcome> {
  await database.transaction(async (tx) => {
    // The read later gives this attempt its outcome in place.
    const attemptId = await attempt(tx, mail, recipient, campaignId, 'DEFERRED', null, null, now);
    await tx.insert(mailDeferred).values({
      id: newId('mdf', now),
      campaignId,
      recipient,
      attemptId,
      via: mail.via,
      remote: mail.remote,
      providerDeliveryId: mail.providerDeliveryId,
      size: mail.size,
      raw: mail.raw,
      processed: mail.raw ? null : mail.processed,
      tries: 0,
      nextTryAt: new Date(now.getTime() + (RETRY_AFTER_MS[0] as number)),
      receivedAt: now,
    });
  });
  return { recipient, outcome: 'DEFERRED', campaign_id: campaignId };
}

/** What the sweep needs of the parser pool (ParserPool is one). */
export interface DeferredMailParser {
  parseMail(raw: Buffer): Promise<ParsedMail>;
  parseProcessedMail(p: ProcessedMail): Promise<ParsedMail>;
}

type DeferredRow = typeof mailDeferred.$inferSelect;

/**
 * Reads the mail that is due, a batch at a time. Each row is claimed by moving its next try on
 * (so another replica, or this one after a crash, takes it only then), read outside any
 * transaction, and settled in one: stored (or refused), its attempt given the outcome, the row
 * deleted. Answers what happened, for the log.
 */
export async function readDeferredMail(
  database: Database,
  parser: DeferredMailParser,
  now: Date,
): Promise<{ read: number; again_later: number; refused: number }> {
  const claimed = await database.transaction(async (tx) => {
    const due = await tx
      .select({ id: mailDeferred.id })
      .from(mailDeferred)
      .where(lte(mailDeferred.nextTryAt, now))
      .orderBy(asc(mailDeferred.nextTryAt))
      .limit(BATCH)
      .for('update', { skipLocked: true });
    if (due.length === 0) return [];
    return tx
      .update(mailDeferred)
      .set({
        tries: sql`${mailDeferred.tries} + 1`,
        nextTryAt: sql`${now}::timestamptz + (${sql.raw(retryInterval())})[least(${mailDeferred.tries} + 2, ${RETRY_AFTER_MS.length})]`,
      })
      .where(
        inArray(
          mailDeferred.id,
          due.map((d) => d.id),
        ),
      )
      .returning();
  });
  const counts = { read: 0, again_later: 0, refused: 0 };
  for (const row of claimed) counts[await readOne(database, parser, row, now)]++;
  return counts;
}

/** The retry intervals as a PostgreSQL interval array (1-based: entry k is after try k - 1). */
function retryInterval(): string {
  return `array[${RETRY_AFTER_MS.map((ms) => `interval '${ms / 1000} seconds'`).join(', ')}]`;
}

async function readOne(
  database: Database,
  parser: DeferredMailParser,
  row: DeferredRow,
  now: Date,
): Promise<'read' | 'again_later' | 'refused'> {
  const source = {
    via: row.via as MailVia,
    remote: row.remote,
    providerDeliveryId: row.providerDeliveryId,
    size: row.size,
  };
  let parsed: ParsedMail;
  try {
    // In the sender's share of the parser, as when it arrived.
    parsed = await withTenant(`mail:${row.remote ?? 'unknown'}`, () =>
      row.raw ? parser.parseMail(row.raw) : parser.parseProcessedMail(row.processed as ProcessedMail),
    );
  } catch (err) {
    const lastTry = row.tries >= RETRY_AFTER_MS.length;
    if (isDeferrable(err) && !lastTry) return 'again_later';
    if (!(err instanceof MailRefused) && !isDeferrable(err)) throw err;
    const reason: MailRefusal =
      err instanceof MailRefused && err.code === 'TOO_LARGE' ? 'TOO_LARGE' : 'MALFORMED';
    await settle(database, row, async (tx) => {
      await refuse(tx, source, row.recipient, row.campaignId, reason, now, row.attemptId);
    });
    return 'refused';
  }
  const bodyHash = bodyHashOf(parsed);
  try {
    await settle(database, row, async (tx) => {
      await store(
        tx,
        { campaignId: row.campaignId },
        row.recipient,
        source,
        parsed,
        bodyHash,
        now,
        row.attemptId,
      );
    });
  } catch (err) {
    if (!isDataError(err)) throw err;
    await settle(database, row, async (tx) => {
      await refuse(tx, source, row.recipient, row.campaignId, 'MALFORMED', now, row.attemptId);
    });
    return 'refused';
  }
  return 'read';
}

/** Deletes the row and settles it in one transaction; nothing when another replica already did. */
async function settle(
  database: Database,
  row: DeferredRow,
  work: (tx: Executor) => Promise<void>,
): Promise<void> {
  await database.transaction(async (tx) => {
    const taken = await tx
      .delete(mailDeferred)
      .where(and(eq(mailDeferred.id, row.id), eq(mailDeferred.tries, row.tries)))
      .returning({ id: mailDeferred.id });
    if (taken.length === 1) await work(tx);
  });
}

/** The sweep on a timer, on every replica (rows are claimed, so two never read the same mail at once). */
export class DeferredMailReader {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly database: Database,
    private readonly parser: DeferredMailParser,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = readDeferredMail(this.database, this.parser, this.clock.now())
        .then(
          (result) => {
            if (result.read + result.again_later + result.refused > 0)
              this.logger.info({ result }, 'deferred mail read');
          },
          // An unreachable database is an outage (warn); anything else is a bug (error).
          (err: Error) =>
            this.logger[jobFailureLevel(err)](
              { err },
              'reading deferred mail failed; it is tried again soon',
            ),
        )
        .finally(() => {
          this.running = null;
        });
    }, SWEEP_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }
}
