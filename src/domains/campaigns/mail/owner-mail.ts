import { and, desc, eq, lt, or } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { describeAgents } from '../../identity/index.ts';
import type { InboundMail, MailRefusal } from '../../mail/types.ts';
import { campaignNotOwned } from '../errors.ts';
import { campaigns } from '../tables.ts';
import { decideAccess } from './access.ts';
import {
  checkRecipient,
  type DeliveryOutcome,
  deliverMail,
  type MailParser,
  type RecipientVerdict,
} from './deliver.ts';
import { ensureMailbox, presentMailbox, usageOf } from './mailbox.ts';
import { mailAccess, mailDeliveryAttempts, mailMessages } from './tables.ts';

/** Delivery attempts in one answer, at most. */
const MAX_ATTEMPTS = 100;

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
    return deliverMail(this.database, this.parser, mail, () => this.clock.now());
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
    return checkRecipient(this.database, address, remote, this.clock.now());
  }

  /** The mailbox as the owner sees it: address, delivery state, usage, attempts and access requests. */
  async mailbox(ownerId: string, campaignId: string) {
    const db = this.database.db;
    const campaign = await this.owned(db, ownerId, campaignId);
    const box = await ensureMailbox(db, campaign, this.domain, this.clock.now());
    return {
      campaign_id: campaignId,
      campaign_title: campaign.title,
      ...presentMailbox(box, await usageOf(db, campaignId), campaign.status === 'ACTIVE'),
      check: `Send any mail to ${box.localPart}@${box.domain}: when it arrives, delivery_state turns VERIFIED.`,
      full_since: box.fullNoticeAt?.toISOString() ?? null,
      attempts: (await this.attemptList(db, campaignId, { limit: 50 })).attempts,
      access: await this.accessList(db, campaignId),
    };
  }

  /**
   * The mailbox's delivery attempts, newest first, `limit` at a time: with `before` (an attempt
   * id from `next_before`), the ones older than it. Accepted and duplicate attempts carry the
   * stored mail's From, Subject and Message-ID; refused ones were not read, so carry none.
   */
  async attempts(ownerId: string, campaignId: string, opts: { before?: string; limit?: number } = {}) {
    const db = this.database.db;
    await this.owned(db, ownerId, campaignId);
    return { campaign_id: campaignId, ...(await this.attemptList(db, campaignId, opts)) };
  }

  /** Every agent's access to the campaign's mail, pending requests first. */
  async accessRequests(ownerId: string, campaignId: string) {
    const db = this.database.db;
    await this.owned(db, ownerId, campaignId);
    return { campaign_id: campaignId, requests: await this.accessList(db, campaignId) };
  }

  decide(ownerId: string, campaignId: string, requestId: string, decision: 'APPROVE' | 'DECLINE') {
    return this.database.transaction(async (tx) => {
      await this.owned(tx, ownerId, campaignId);
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
      await this.owned(tx, ownerId, campaignId);
      return decideAccess(tx, campaignId, ownerId, { agentId }, 'REVOKED', this.clock.now());
    });
  }

  private async attemptList(
    ex: Executor,
    campaignId: string,
    opts: { before?: string | undefined; limit?: number | undefined },
  ) {
    const limit = Math.min(Math.max(opts.limit ?? 50, 1), MAX_ATTEMPTS);
    const a = mailDeliveryAttempts;
    const [from] = opts.before
      ? await ex
          .select({ at: a.createdAt })
          .from(a)
          .where(and(eq(a.id, opts.before), eq(a.campaignId, campaignId)))
      : [];
    const rows = await ex
      .select({
        attempt: a,
        mail: {
          from: mailMessages.fromAddress,
          subject: mailMessages.subject,
          messageId: mailMessages.messageIdHeader,
        },
      })
      .from(a)
      .leftJoin(mailMessages, eq(mailMessages.id, a.mailId))
      .where(
        and(
          eq(a.campaignId, campaignId),
          from && opts.before
            ? or(lt(a.createdAt, from.at), and(eq(a.createdAt, from.at), lt(a.id, opts.before)))
            : undefined,
        ),
      )
      .orderBy(desc(a.createdAt), desc(a.id))
      .limit(limit + 1);
    const page = rows.slice(0, limit);
    return {
      attempts: page.map(({ attempt: r, mail }) => ({
        attempt_id: r.id,
        via: r.via,
        outcome: r.outcome,
        reason: r.reason,
        recipient: r.recipient,
        remote: r.remote,
        size: r.size,
        mail_id: r.mailId,
        // The stored mail's headers (untrusted: the sender wrote them); null for a refused attempt.
        mail:
          r.mailId && mail ? { from: mail.from, subject: mail.subject, message_id: mail.messageId } : null,
        at: r.createdAt.toISOString(),
      })),
      next_before: rows.length > limit ? (page.at(-1)?.attempt.id ?? null) : null,
    };
  }

  private async accessList(ex: Executor, campaignId: string) {
    const rows = await ex
      .select()
      .from(mailAccess)
      .where(eq(mailAccess.campaignId, campaignId))
      .orderBy(desc(mailAccess.requestedAt));
    const names = new Map(
      (
        await describeAgents(
          ex,
          rows.map((r) => r.agentId),
        )
      ).map((a) => [a.id, a.displayName]),
    );
    const order = (s: string) => (s === 'REQUESTED' ? 0 : 1);
    return rows
      .sort((a, b) => order(a.status) - order(b.status))
      .map((r) => ({
        request_id: r.requestId,
        agent_id: r.agentId,
        agent_display_name: names.get(r.agentId) ?? null,
        status: r.status,
        reason: r.reason,
        requested_at: r.requestedAt.toISOString(),
        decided_at: r.decidedAt?.toISOString() ?? null,
      }));
  }

  private async owned(ex: Executor, ownerId: string, campaignId: string) {
    const [campaign] = await ex
      .select()
      .from(campaigns)
      .where(and(eq(campaigns.id, campaignId), eq(campaigns.ownerId, ownerId)));
    if (!campaign) throw campaignNotOwned(campaignId);
    return campaign;
  }
}
