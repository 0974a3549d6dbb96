import { randomBytes } from 'node:crypto';
import { and, count, eq, sql } from 'drizzle-orm';
import { base32 } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import type { CampaignRow } from '../campaigns/index.ts';
import { MAIL_LIMITS, MAILBOX_DEFAULTS } from './limits.ts';
import { mailboxes, mailMessages } from './tables.ts';

/**
 * A campaign's receiving address (SPEC Mailbox): `<campaign-slug>-<random>@<mail domain>`,
 * made on first use. The random part keeps addresses unguessable from the campaign's title, so
 * a mailbox receives only from those it was given to.
 */

export type MailboxRow = typeof mailboxes.$inferSelect;

function slugOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24)
    .replace(/-+$/, '');
  return slug || 'campaign';
}

/** The campaign's mailbox, made now if it has none (two makers race harmlessly on the key). */
export async function ensureMailbox(
  ex: Executor,
  campaign: CampaignRow,
  domain: string,
  now: Date,
): Promise<MailboxRow> {
  await ex
    .insert(mailboxes)
    .values({
      campaignId: campaign.id,
      localPart: `${slugOf(campaign.title)}-${base32(randomBytes(5))}`,
      domain,
      deliveryState: 'UNVERIFIED',
      messageLimit: MAILBOX_DEFAULTS.messages,
      byteLimit: MAILBOX_DEFAULTS.bytes,
      createdAt: now,
    })
    .onConflictDoNothing();
  const [row] = await ex.select().from(mailboxes).where(eq(mailboxes.campaignId, campaign.id));
  if (!row) throw new Error(`mailbox of campaign ${campaign.id} vanished after it was made`);
  return row;
}

export async function mailboxOf(ex: Executor, campaignId: string): Promise<MailboxRow | null> {
  const [row] = await ex.select().from(mailboxes).where(eq(mailboxes.campaignId, campaignId));
  return row ?? null;
}

/**
 * The mailbox an address names (case-insensitive), or null: its local part at the domain it was
 * made on, or at the domain configured now. An operator who moves CAIRN_MAIL_DOMAIN keeps every
 * mailbox (the random local part is what makes an address unique), and mail still routed to the
 * old domain keeps arriving.
 */
export async function mailboxAt(
  ex: Executor,
  address: string,
  currentDomain: string,
): Promise<MailboxRow | null> {
  const at = address.lastIndexOf('@');
  if (at <= 0) return null;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1);
  const [row] = await ex
    .select()
    .from(mailboxes)
    .where(
      and(
        sql`lower(${mailboxes.localPart}) = lower(${local})`,
        domain.toLowerCase() === currentDomain.toLowerCase()
          ? undefined
          : sql`lower(${mailboxes.domain}) = lower(${domain})`,
      ),
    )
    .limit(1);
  return row ?? null;
}

/** The address to give out: the local part at the domain configured now. */
export function mailboxAddress(m: MailboxRow, currentDomain: string): string {
  return `${m.localPart}@${currentDomain}`;
}

/** How full the mailbox is. */
export async function usageOf(
  ex: Executor,
  campaignId: string,
): Promise<{ messages: number; bytes: number }> {
  const [row] = await ex
    .select({ messages: count(), bytes: sql<string | null>`sum(${mailMessages.size})` })
    .from(mailMessages)
    .where(eq(mailMessages.campaignId, campaignId));
  return { messages: Number(row?.messages ?? 0), bytes: Number(row?.bytes ?? 0) };
}

/** The mailbox as agents and owners read it (SPEC Mailbox message: address, delivery_state, …). */
export function presentMailbox(
  m: MailboxRow,
  usage: { messages: number; bytes: number },
  campaignActive: boolean,
  currentDomain: string,
) {
  return {
    address: mailboxAddress(m, currentDomain),
    status: campaignActive ? 'READY' : 'CLOSED',
    delivery_state: m.deliveryState,
    delivery_verified_at: m.deliveryVerifiedAt?.toISOString() ?? null,
    meaning:
      m.deliveryState === 'VERIFIED'
        ? 'Mail has arrived at this address: delivery works.'
        : 'No mail has arrived yet. READY only means the mailbox is enabled: send a check mail to the address to prove delivery works end to end (delivery_state turns VERIFIED).',
    retention_policy: {
      max_messages: m.messageLimit,
      max_bytes: m.byteLimit,
      max_payload_bytes: MAIL_LIMITS.payloadBytes,
      max_text_chars: MAIL_LIMITS.textChars,
      automatic_deletion: false,
      when_full:
        'New mail is refused (MAILBOX_FULL) until the owner makes room by deleting mail, in the console or with POST /v1/campaigns/{id}/mail/messages/delete; nothing is deleted automatically.',
      attachments: 'metadata only (name, type, size, sha256); attachment bytes are never stored',
    },
    usage,
    full: usage.messages >= m.messageLimit || usage.bytes >= m.byteLimit,
  };
}
