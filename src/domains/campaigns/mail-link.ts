import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import type { CampaignRow } from './core/member.ts';
import { campaignNotOwned } from './errors.ts';
import { campaigns } from './tables.ts';

/**
 * What the mail area (domains/mail) uses of campaigns: a mailbox belongs to a campaign, its
 * readers are the campaign's members under the owner's grant, its tools are campaign tools, and
 * what happens to it is written to the campaign's ledger. Campaigns reach the mailbox back only
 * through Extensions.campaignMail.
 */
export { memberTool } from './campaign-tool.ts';
export { type Actor, appendEvent } from './core/ledger.ts';
export { type CampaignRow, type Membership, requireMembership } from './core/member.ts';
export { cursorArg, limitArg, longText, mailIdArg } from './schemas.ts';

/** A campaign's status, or null when there is no such campaign (mail for it is refused). */
export async function campaignStatusOf(
  ex: Executor,
  campaignId: string,
): Promise<CampaignRow['status'] | null> {
  const [campaign] = await ex
    .select({ status: campaigns.status })
    .from(campaigns)
    .where(eq(campaigns.id, campaignId));
  return campaign?.status ?? null;
}

/** The owner's campaign; any other is NOT_FOUND, so one owner cannot probe another's ids. */
export async function ownedCampaign(ex: Executor, ownerId: string, campaignId: string): Promise<CampaignRow> {
  const [campaign] = await ex
    .select()
    .from(campaigns)
    .where(and(eq(campaigns.id, campaignId), eq(campaigns.ownerId, ownerId)));
  if (!campaign) throw campaignNotOwned(campaignId);
  return campaign;
}
