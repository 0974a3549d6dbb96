import { and, desc, eq } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Database, Executor } from '../../../storage/database.ts';
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
import { mailAccess, mailDeliveryAttempts } from './tables.ts';

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
    const attempts = await db
      .select()
      .from(mailDeliveryAttempts)
      .where(eq(mailDeliveryAttempts.campaignId, campaignId))
      .orderBy(desc(mailDeliveryAttempts.createdAt), desc(mailDeliveryAttempts.id))
      .limit(50);
    return {
      campaign_id: campaignId,
      ...presentMailbox(box, await usageOf(db, campaignId), campaign.status === 'ACTIVE'),
      check: `Send any mail to ${box.localPart}@${box.domain}: when it arrives, delivery_state turns VERIFIED.`,
      full_since: box.fullNoticeAt?.toISOString() ?? null,
      attempts: attempts.map((a) => ({
        attempt_id: a.id,
        via: a.via,
        outcome: a.outcome,
        reason: a.reason,
        recipient: a.recipient,
        remote: a.remote,
        size: a.size,
        mail_id: a.mailId,
        at: a.createdAt.toISOString(),
      })),
      access: await this.accessList(db, campaignId),
    };
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

  private async accessList(ex: Executor, campaignId: string) {
    const rows = await ex
      .select()
      .from(mailAccess)
      .where(eq(mailAccess.campaignId, campaignId))
      .orderBy(desc(mailAccess.requestedAt));
    const order = (s: string) => (s === 'REQUESTED' ? 0 : 1);
    return rows
      .sort((a, b) => order(a.status) - order(b.status))
      .map((r) => ({
        request_id: r.requestId,
        agent_id: r.agentId,
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
