import { eq } from 'drizzle-orm';
import { type Clock, systemClock } from '../../../kernel/clock.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Database } from '../../../storage/database.ts';
import type { EvidenceRecord } from '../../reading/index.ts';
import { ownerViewer, type Viewer } from '../audience.ts';
import { campaignNotOwned } from '../errors.ts';
import { findCampaign } from '../membership/members-repo.ts';
import { inCampaign } from '../verification/source-checks.ts';
import { presentFinding } from './finding-present.ts';
import { listVisibleFindings, visibleReviews } from './finding-repo.ts';
import { findingNotFound } from './findings.ts';
import { type SettingsChange, settingsOf, updateResearchSettings } from './settings.ts';
import { STATUS_MEANING } from './status.ts';
import { exportStix } from './stix-export.ts';
import { findings } from './tables.ts';

/**
 * Findings as the campaign's owner of record sees them (`/v1/research/…` and the console): every
 * finding and review of campaigns the owner owns, and the STIX export of their sources.
 */
export class FindingOwnerService {
  constructor(
    private readonly database: Database,
    private readonly secret: string,
    private readonly clock: Clock = systemClock,
  ) {}

  async list(
    ownerId: string,
    campaignId: string,
    opts: { status?: string | undefined; limit?: number | undefined; cursor?: string | undefined } = {},
  ) {
    const viewer = await this.viewer(ownerId, campaignId);
    const settings = settingsOf(viewer.campaign);
    const binding = `owner_findings:${ownerId}:${campaignId}:${opts.status ?? '*'}`;
    const beforeId = opts.cursor
      ? openCursor<{ before: string }>(this.secret, binding, opts.cursor).before
      : undefined;
    const limit = opts.limit ?? 50;
    const rows = await listVisibleFindings(
      this.database.db,
      viewer,
      { status: opts.status, beforeId },
      limit,
    );
    const page = cutPage(rows, limit, (last) => signCursor(this.secret, binding, { before: last.id }));
    const reviews = await visibleReviews(
      this.database.db,
      viewer,
      page.rows.map((r) => r.id),
    );
    return {
      campaign_id: campaignId,
      settings,
      findings: page.rows.map((r) => presentFinding(r, reviews.get(r.id) ?? [])),
      status_meaning: STATUS_MEANING,
      next_cursor: page.next,
    };
  }

  /** One finding of a campaign the owner owns; another's is the same NOT_FOUND as none. */
  async get(ownerId: string, findingId: string) {
    const [row] = await this.database.db.select().from(findings).where(eq(findings.id, findingId));
    const campaign = row ? await findCampaign(this.database.db, row.campaignId) : null;
    if (!row || campaign?.ownerId !== ownerId) throw findingNotFound(findingId);
    const viewer = ownerViewer(campaign);
    const reviews = await visibleReviews(this.database.db, viewer, [row.id]);
    return presentFinding(row, reviews.get(row.id) ?? []);
  }

  /**
   * The STIX bundle of sources of this campaign. `evidenceOf` is the owner's view of evidence;
   * only what is part of this campaign (or the owner's own import) may go into its export.
   */
  async exportStix(
    ownerId: string,
    campaignId: string,
    sourceIds: string[],
    evidenceOf: (id: string) => Promise<EvidenceRecord | null>,
  ) {
    const viewer = await this.viewer(ownerId, campaignId);
    const db = this.database.db;
    return exportStix(db, viewer, sourceIds, async (id) => {
      const record = await evidenceOf(id);
      if (!record) return null;
      return record.ownerId === ownerId || (await inCampaign(db, campaignId, id)) ? record : null;
    });
  }

  /**
   * Changes the campaign's research settings (the TLP of its STIX exports, same-owner reviews):
   * the owner of record only, while the campaign is active; a change writes
   * CAMPAIGN_SETTINGS_CHANGED to the ledger in the same transaction. Answers the settings now.
   */
  updateSettings(ownerId: string, campaignId: string, change: SettingsChange) {
    return this.database.transaction((tx) =>
      updateResearchSettings(tx, ownerId, campaignId, change, this.clock.now()),
    );
  }

  private async viewer(ownerId: string, campaignId: string): Promise<Viewer> {
    const campaign = await findCampaign(this.database.db, campaignId);
    if (campaign?.ownerId !== ownerId) throw campaignNotOwned(campaignId);
    return ownerViewer(campaign);
  }
}
