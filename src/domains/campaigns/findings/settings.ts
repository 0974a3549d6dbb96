import { eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { TLP_LEVELS, type TlpLevel } from '../../research/index.ts';
import { appendEvent } from '../core/ledger.ts';
import { campaignClosed, campaignNotOwned } from '../errors.ts';
import { campaigns } from '../tables.ts';

/**
 * A campaign's research settings (docs/research.md, "Console and settings"): the TLP 2.0 marking
 * of its STIX exports and whether identities of a finding's author's owner may review it. Only
 * the owner of record changes them, while the campaign is active; a change is a ledger event.
 */

export interface ResearchSettings {
  tlp: TlpLevel;
  allow_same_owner_review: boolean;
}

export interface SettingsChange {
  tlp?: string | undefined;
  allowSameOwnerReview?: boolean | undefined;
}

export const isTlpLevel = (value: string): value is TlpLevel =>
  (TLP_LEVELS as readonly string[]).includes(value);

/** The settings as stored; a value outside TLP 2.0 (never written by Cairn) reads as it is. */
export function settingsOf(campaign: { tlp: string; allowSameOwnerReview: boolean }): ResearchSettings {
  return { tlp: campaign.tlp as TlpLevel, allow_same_owner_review: campaign.allowSameOwnerReview };
}

/**
 * Changes what `change` names, in the caller's transaction. The campaign row is locked first, so
 * two changes apply one after the other; a change to the values already set writes nothing.
 */
export async function updateResearchSettings(
  tx: Executor,
  ownerId: string,
  campaignId: string,
  change: SettingsChange,
  now: Date,
): Promise<ResearchSettings & { campaign_id: string; changed: boolean }> {
  if (change.tlp !== undefined && !isTlpLevel(change.tlp)) {
    throw new DomainError('VALIDATION_FAILED', `Unknown TLP level; choose one of ${TLP_LEVELS.join(', ')}.`, {
      detail: [{ loc: ['body', 'tlp'], msg: `one of ${TLP_LEVELS.join(', ')}`, type: 'enum' }],
    });
  }
  const campaign = await lockedOne(
    tx.select().from(campaigns).where(eq(campaigns.id, campaignId)),
    () => campaignNotOwned(campaignId),
    { only: (c) => c.ownerId === ownerId },
  );
  if (campaign.status === 'CLOSED') throw campaignClosed(campaignId);
  const before = settingsOf(campaign);
  const after: ResearchSettings = {
    tlp: (change.tlp as TlpLevel | undefined) ?? before.tlp,
    allow_same_owner_review: change.allowSameOwnerReview ?? before.allow_same_owner_review,
  };
  const changed =
    after.tlp !== before.tlp || after.allow_same_owner_review !== before.allow_same_owner_review;
  if (changed) {
    await tx
      .update(campaigns)
      .set({ tlp: after.tlp, allowSameOwnerReview: after.allow_same_owner_review })
      .where(eq(campaigns.id, campaignId));
    await appendEvent(
      tx,
      campaignId,
      {
        kind: 'CAMPAIGN_SETTINGS_CHANGED',
        actor: { ownerId, role: 'OWNER' },
        payload: { before, after },
      },
      now,
    );
  }
  return { campaign_id: campaignId, ...after, changed };
}
