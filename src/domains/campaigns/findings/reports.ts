import { createHash } from 'node:crypto';
import { and, desc, eq, isNull, lt, or, type SQL } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Database } from '../../../storage/database.ts';
import type { EvidenceRecord } from '../../reading/index.ts';
import { ownerViewer } from '../audience.ts';
import { appendEvent } from '../core/ledger.ts';
import { campaignNotOwned } from '../errors.ts';
import { findCampaign } from '../membership/members-repo.ts';
import { campaigns } from '../tables.ts';
import { inCampaign } from '../verification/source-checks.ts';
import { exportStix } from './stix-export.ts';
import { researchReports } from './tables.ts';

/** The marking that allows public disclosure (TLP 2.0): nothing else may be published. */
const PUBLIC_TLP = 'TLP:CLEAR';

export interface ReportDraft {
  title: string;
  summary: string;
  evidenceIds: string[];
}

/**
 * Research reports a campaign's owner publishes (`/v1/public/research-reports`; none by default):
 * the STIX bundle of the sources named, frozen at publication, from a TLP:CLEAR campaign only.
 */
export class ResearchReports {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
  ) {}

  async publish(
    ownerId: string,
    campaignId: string,
    draft: ReportDraft,
    evidenceOf: (id: string) => Promise<EvidenceRecord | null>,
  ) {
    // The bundle is built from reads outside the writing transaction: `evidenceOf` reads through
    // the owner's own evidence view, which is not this transaction's.
    const db = this.database.db;
    const campaign = await findCampaign(db, campaignId);
    if (campaign?.ownerId !== ownerId) throw campaignNotOwned(campaignId);
    if (campaign.tlp !== PUBLIC_TLP) {
      throw new DomainError(
        'REPORT_NOT_PUBLIC',
        `Campaign ${campaignId} is marked ${campaign.tlp}; only TLP:CLEAR material may be published.`,
        { campaign_id: campaignId, tlp: campaign.tlp },
      );
    }
    const { json } = await exportStix(db, ownerViewer(campaign), draft.evidenceIds, async (id) => {
      const record = await evidenceOf(id);
      if (!record) return null;
      return record.ownerId === ownerId || (await inCampaign(db, campaignId, id)) ? record : null;
    });
    return this.database.transaction(async (tx) => {
      // The marking is checked again under the campaign's lock: a change to TLP:AMBER that
      // commits meanwhile must not let the old bundle out.
      const [locked] = await tx
        .select({ tlp: campaigns.tlp })
        .from(campaigns)
        .where(eq(campaigns.id, campaignId))
        .for('update');
      if (locked?.tlp !== PUBLIC_TLP) {
        throw new DomainError('REPORT_NOT_PUBLIC', `Campaign ${campaignId} is no longer TLP:CLEAR.`, {
          campaign_id: campaignId,
          tlp: locked?.tlp ?? null,
        });
      }
      const now = this.clock.now();
      const id = newId('rpt', now);
      const [row] = await tx
        .insert(researchReports)
        .values({
          id,
          campaignId,
          title: draft.title,
          summary: draft.summary,
          sourceIds: [...new Set(draft.evidenceIds)].sort(),
          bundle: json,
          bundleSha256: createHash('sha256').update(json).digest('hex'),
          publishedAt: now,
          withdrawnAt: null,
        })
        .returning();
      await appendEvent(
        tx,
        campaignId,
        {
          kind: 'REPORT_PUBLISHED',
          actor: { ownerId, role: 'OWNER' },
          evidenceIds: row!.sourceIds,
          payload: { report_id: id, title: draft.title },
        },
        now,
      );
      return present(row!, campaign.title);
    });
  }

  /** Takes a report off the public list; its bundle stops being served. */
  async withdraw(ownerId: string, reportId: string) {
    return this.database.transaction(async (tx) => {
      const [row] = await tx
        .select()
        .from(researchReports)
        .where(eq(researchReports.id, reportId))
        .for('update');
      const campaign = row ? await findCampaign(tx, row.campaignId) : null;
      if (!row || campaign?.ownerId !== ownerId) throw reportNotFound(reportId);
      if (row.withdrawnAt) return present(row, campaign.title);
      const now = this.clock.now();
      const [updated] = await tx
        .update(researchReports)
        .set({ withdrawnAt: now })
        .where(eq(researchReports.id, reportId))
        .returning();
      await appendEvent(
        tx,
        row.campaignId,
        { kind: 'REPORT_WITHDRAWN', actor: { ownerId, role: 'OWNER' }, payload: { report_id: reportId } },
        now,
      );
      return present(updated!, campaign.title);
    });
  }

  /** The public list: published and not withdrawn, newest first, one signed page at a time. */
  async listPublished(opts: { limit?: number | undefined; cursor?: string | undefined } = {}) {
    const binding = 'public_research_reports';
    const before = opts.cursor
      ? openCursor<{ at: string; id: string }>(this.secret, binding, opts.cursor)
      : undefined;
    const limit = opts.limit ?? 20;
    const conditions: SQL[] = [isNull(researchReports.withdrawnAt)];
    if (before) {
      const at = new Date(before.at);
      conditions.push(
        or(
          lt(researchReports.publishedAt, at),
          and(eq(researchReports.publishedAt, at), lt(researchReports.id, before.id)),
        ) as SQL,
      );
    }
    const rows = await this.database.db
      .select({ report: researchReports, campaignTitle: campaigns.title })
      .from(researchReports)
      .innerJoin(campaigns, eq(campaigns.id, researchReports.campaignId))
      .where(and(...conditions))
      .orderBy(desc(researchReports.publishedAt), desc(researchReports.id))
      .limit(limit + 1);
    const page = cutPage(rows, limit, (last) =>
      signCursor(this.secret, binding, { at: last.report.publishedAt.toISOString(), id: last.report.id }),
    );
    return {
      reports: page.rows.map((r) => present(r.report, r.campaignTitle)),
      next_cursor: page.next,
    };
  }

  /** A published report's bundle, exactly as frozen; NOT_FOUND once withdrawn. */
  async publishedBundle(reportId: string): Promise<string> {
    const [row] = await this.database.db
      .select({ bundle: researchReports.bundle })
      .from(researchReports)
      .where(and(eq(researchReports.id, reportId), isNull(researchReports.withdrawnAt)));
    if (!row) throw reportNotFound(reportId);
    return row.bundle;
  }
}

const reportNotFound = (reportId: string) =>
  new DomainError('NOT_FOUND', `No published research report ${reportId}.`, { report_id: reportId });

function present(r: typeof researchReports.$inferSelect, campaignTitle: string) {
  return {
    report_id: r.id,
    campaign_id: r.campaignId,
    campaign_title: campaignTitle,
    title: r.title,
    summary: r.summary,
    source_ids: r.sourceIds,
    bundle_url: `/v1/public/research-reports/${r.id}`,
    bundle_sha256: r.bundleSha256,
    published_at: r.publishedAt.toISOString(),
    withdrawn_at: r.withdrawnAt?.toISOString() ?? null,
  };
}
