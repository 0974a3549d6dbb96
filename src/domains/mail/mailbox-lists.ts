import { and, desc, eq, lt, or } from 'drizzle-orm';
import { cutPage } from '../../kernel/paging.ts';
import type { Executor } from '../../storage/database.ts';
import { describeAgents } from '../identity/index.ts';
import { mailAccess, mailDeliveryAttempts, mailMessages } from './tables.ts';

/**
 * The two lists a mailbox's owner reads besides its mail: the delivery attempts, newest first and
 * a page at a time (with the stored mail's headers where there is one), and every agent's access
 * to the campaign's mail, pending requests first.
 */

/** Delivery attempts in one answer, at most. */
const MAX_ATTEMPTS = 100;

/** The campaign's delivery attempts, newest first, `limit` at a time (older than `before` when given). */
export async function attemptList(
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
        id: mailMessages.id,
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
  const page = cutPage(rows, limit, (last) => last.attempt.id);
  return {
    attempts: page.rows.map(({ attempt: r, mail }) => ({
      attempt_id: r.id,
      via: r.via,
      outcome: r.outcome,
      reason: r.reason,
      recipient: r.recipient,
      remote: r.remote,
      size: r.size,
      mail_id: r.mailId,
      // The stored mail's headers (untrusted: the sender wrote them); null for a refused attempt
      // and for a mail the owner has deleted since (mail_deleted).
      mail: r.mailId && mail ? { from: mail.from, subject: mail.subject, message_id: mail.messageId } : null,
      mail_deleted: r.mailId !== null && !mail,
      at: r.createdAt.toISOString(),
    })),
    next_before: page.next,
  };
}

/** Every agent's access to the campaign's mail (request, status, decision), pending requests first. */
export async function accessList(ex: Executor, campaignId: string) {
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
