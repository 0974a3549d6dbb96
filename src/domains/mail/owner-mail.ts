import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import { cutPage } from '../../kernel/paging.ts';
import { withTenant } from '../../kernel/tenant.ts';
import type { Database } from '../../storage/database.ts';
import { appendEvent, ownedCampaign } from '../campaigns/index.ts';
import { decideAccess } from './access.ts';
import {
  checkRecipient,
  type DeliveryOutcome,
  deliverMail,
  type MailParser,
  type RecipientVerdict,
} from './deliver.ts';
import { ensureMailbox, mailboxAddress, presentMailbox, usageOf } from './mailbox.ts';
import { accessList, attemptList } from './mailbox-lists.ts';
import { mailboxes, mailDeliveryAttempts, mailMessages } from './tables.ts';
import type { InboundMail, MailRefusal } from './types.ts';

/** Stored mails in one answer, at most. */
const MAX_MAILS = 100;
/** Mails deleted by one call, at most. */
const MAX_MAIL_DELETE = 100;

/**
 * Campaign mail for the owner of record (console, `/v1/campaigns/{id}/mail…`) and for the ways
 * mail comes in (the SMTP receiver, the provider callbacks). Nothing here sends mail.
 */
export class MailService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly parser: MailParser,
    readonly domain: string,
  ) {}

  /** One inbound mail, however it came: stored per recipient mailbox, or refused with a reason. */
  deliver(mail: InboundMail): Promise<DeliveryOutcome[]> {
    // Anonymous senders share the parser by source address (issue 40): one sender's mail bombs
    // wait behind its own share, not everybody's reads.
    return withTenant(`mail:${mail.remote ?? 'unknown'}`, () =>
      deliverMail(this.database, this.parser, mail, () => this.clock.now(), this.domain),
    );
  }

  /**
   * A delivery refused before its recipients could be read (a bad signature, a stale timestamp,
   * a payload over the limit): recorded as a failed attempt of no mailbox, nothing stored.
   */
  async refuseUnread(
    via: InboundMail['via'],
    reason: MailRefusal,
    remote: string | null,
    size: number | null,
  ) {
    await this.database.db.insert(mailDeliveryAttempts).values({
      id: newId('mat', this.clock.now()),
      campaignId: null,
      via,
      recipient: null,
      remote,
      size,
      outcome: 'REFUSED',
      reason,
      mailId: null,
      providerDeliveryId: null,
      createdAt: this.clock.now(),
    });
  }

  /** Whether the SMTP receiver takes this recipient at RCPT TO, and why not (recorded for its owner). */
  checkRecipient(address: string, remote: string | null): Promise<RecipientVerdict> {
    return checkRecipient(this.database, address, remote, this.clock.now(), this.domain);
  }

  /** The mailbox as the owner sees it: address, delivery state, usage, attempts and access requests. */
  async mailbox(ownerId: string, campaignId: string) {
    const db = this.database.db;
    const campaign = await ownedCampaign(db, ownerId, campaignId);
    const box = await ensureMailbox(db, campaign, this.domain, this.clock.now());
    return {
      campaign_id: campaignId,
      campaign_title: campaign.title,
      ...presentMailbox(box, await usageOf(db, campaignId), campaign.status === 'ACTIVE', this.domain),
      check: `Send any mail to ${mailboxAddress(box, this.domain)}: when it arrives, delivery_state turns VERIFIED.`,
      full_since: box.fullNoticeAt?.toISOString() ?? null,
      attempts: (await attemptList(db, campaignId, { limit: 50 })).attempts,
      access: await accessList(db, campaignId),
    };
  }

  /**
   * The mailbox's delivery attempts, newest first, `limit` at a time: with `before` (an attempt
   * id from `next_before`), the ones older than it. Accepted and duplicate attempts carry the
   * stored mail's From, Subject and Message-ID; refused ones were not read, so carry none.
   */
  async attempts(ownerId: string, campaignId: string, opts: { before?: string; limit?: number } = {}) {
    const db = this.database.db;
    await ownedCampaign(db, ownerId, campaignId);
    return { campaign_id: campaignId, ...(await attemptList(db, campaignId, opts)) };
  }

  /**
   * The mail the mailbox holds, newest first, `limit` at a time (with `before`, a mail id from
   * `next_before`: the ones older than it, even when that mail was deleted meanwhile): what takes
   * the room, so the owner can choose what to delete. Headers only, never the text; the headers
   * are the sender's words, to be shown as text.
   */
  async messages(ownerId: string, campaignId: string, opts: { before?: string; limit?: number } = {}) {
    const db = this.database.db;
    const campaign = await ownedCampaign(db, ownerId, campaignId);
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_MAILS);
    const m = mailMessages;
    // Mail ids are ULIDs made from the arrival time: their byte order is the arrival order.
    const rows = await db
      .select({
        id: m.id,
        from: m.fromAddress,
        to: m.toAddress,
        subject: m.subject,
        messageId: m.messageIdHeader,
        via: m.via,
        receivedAt: m.receivedAt,
        size: m.size,
        attachments: sql<number>`jsonb_array_length(${m.attachments})`.mapWith(Number),
        flags: m.flags,
        evidenceId: m.evidenceId,
      })
      .from(m)
      .where(
        and(
          eq(m.campaignId, campaignId),
          opts.before ? sql`${m.id} collate "C" < ${opts.before}` : undefined,
        ),
      )
      .orderBy(sql`${m.id} collate "C" desc`)
      .limit(limit + 1);
    const page = cutPage(rows, limit, (last) => last.id);
    const box = await ensureMailbox(db, campaign, this.domain, this.clock.now());
    const shown = presentMailbox(
      box,
      await usageOf(db, campaignId),
      campaign.status === 'ACTIVE',
      this.domain,
    );
    return {
      campaign_id: campaignId,
      usage: shown.usage,
      retention_policy: { max_messages: box.messageLimit, max_bytes: box.byteLimit },
      full: shown.full,
      mails: page.rows.map((r) => ({
        mail_id: r.id,
        // From, To, Subject and Message-ID are untrusted: the sender wrote them.
        from: r.from,
        to: r.to,
        subject: r.subject,
        message_id: r.messageId,
        via: r.via,
        received_at: r.receivedAt.toISOString(),
        size: r.size,
        attachments: r.attachments,
        flags: r.flags,
        evidence_id: r.evidenceId,
      })),
      next_before: page.next,
    };
  }

  /**
   * Makes room: deletes these mails of the campaign (1 to MAX_MAIL_DELETE ids) in one
   * transaction, under the mailbox's lock like a delivery. All or nothing: an id that is no mail
   * of this campaign refuses the whole call (NOT_FOUND naming it) and nothing is deleted. The
   * evidence a mail became stays (it is a record of its own, others may cite it); delivery
   * attempts keep their mail_id as history. Clears the full notice when room is left, so the
   * next filling is told anew, and records MAIL_DELETED on the ledger.
   */
  async deleteMessages(ownerId: string, campaignId: string, mailIds: string[]) {
    const ids = [...new Set(mailIds)];
    if (ids.length === 0 || ids.length > MAX_MAIL_DELETE) {
      throw new DomainError('VALIDATION_FAILED', `Name 1 to ${MAX_MAIL_DELETE} mail ids to delete.`, {
        count: ids.length,
      });
    }
    return this.database.transaction(async (tx) => {
      const campaign = await ownedCampaign(tx, ownerId, campaignId);
      const now = this.clock.now();
      // The delivery's lock: its "is there room" stays true until either commits.
      const [box] = await tx
        .select()
        .from(mailboxes)
        .where(eq(mailboxes.campaignId, campaignId))
        .for('update');
      // Locked: an evidence_submit of one of them finishes first, so its evidence_id is seen.
      const rows = box
        ? await tx
            .select({ id: mailMessages.id, size: mailMessages.size, evidenceId: mailMessages.evidenceId })
            .from(mailMessages)
            .where(and(eq(mailMessages.campaignId, campaignId), inArray(mailMessages.id, ids)))
            .for('update')
        : [];
      const found = new Set(rows.map((r) => r.id));
      const missing = ids.filter((id) => !found.has(id));
      if (!box || missing.length > 0) {
        throw new DomainError(
          'NOT_FOUND',
          `No mail ${missing.join(', ')} in this campaign: nothing was deleted.`,
          { campaign_id: campaignId, mail_ids: missing },
          { next: 'Pick the mail ids from GET /v1/campaigns/{id}/mail/messages.' },
        );
      }
      await tx
        .delete(mailMessages)
        .where(and(eq(mailMessages.campaignId, campaignId), inArray(mailMessages.id, ids)));
      const usage = await usageOf(tx, campaignId);
      const { full } = presentMailbox(box, usage, campaign.status === 'ACTIVE', this.domain);
      if (box.fullNoticeAt && !full) {
        // Room again: the next refusal for lack of room is a new filling, told anew.
        await tx.update(mailboxes).set({ fullNoticeAt: null }).where(eq(mailboxes.campaignId, campaignId));
      }
      const bytesFreed = rows.reduce((sum, r) => sum + r.size, 0);
      const evidenceKept = rows.flatMap((r) =>
        r.evidenceId ? [{ mail_id: r.id, evidence_id: r.evidenceId }] : [],
      );
      await appendEvent(
        tx,
        campaignId,
        {
          kind: 'MAIL_DELETED',
          actor: { ownerId, role: 'OWNER' },
          payload: {
            mail_ids: ids,
            messages: ids.length,
            bytes: bytesFreed,
            evidence_kept: evidenceKept.map((e) => e.evidence_id),
            usage,
          },
        },
        now,
      );
      return {
        campaign_id: campaignId,
        deleted: ids.length,
        mail_ids: ids,
        bytes_freed: bytesFreed,
        usage,
        retention_policy: { max_messages: box.messageLimit, max_bytes: box.byteLimit },
        full,
        evidence_kept: evidenceKept,
        note:
          evidenceKept.length > 0
            ? 'Deleted. The evidence made from these mails stays: it is a record of its own, which members may have cited. Delivery attempts keep the mail ids as history.'
            : 'Deleted. Delivery attempts keep the mail ids as history.',
      };
    });
  }

  /** Every agent's access to the campaign's mail, pending requests first. */
  async accessRequests(ownerId: string, campaignId: string) {
    const db = this.database.db;
    await ownedCampaign(db, ownerId, campaignId);
    return { campaign_id: campaignId, requests: await accessList(db, campaignId) };
  }

  decide(ownerId: string, campaignId: string, requestId: string, decision: 'APPROVE' | 'DECLINE') {
    return this.database.transaction(async (tx) => {
      await ownedCampaign(tx, ownerId, campaignId);
      return decideAccess(
        tx,
        campaignId,
        ownerId,
        { requestId },
        decision === 'APPROVE' ? 'GRANTED' : 'DECLINED',
        this.clock.now(),
      );
    });
  }

  /** Takes a grant back at once: the agent's next read or wait is refused. */
  revoke(ownerId: string, campaignId: string, agentId: string) {
    return this.database.transaction(async (tx) => {
      await ownedCampaign(tx, ownerId, campaignId);
      return decideAccess(tx, campaignId, ownerId, { agentId }, 'REVOKED', this.clock.now());
    });
  }
}
