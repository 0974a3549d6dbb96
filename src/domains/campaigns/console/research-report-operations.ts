import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { plainLine, plainText } from '../../../kernel/plain-text.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { MAX_STIX_SOURCES } from '../../research/index.ts';
import type { CampaignDoorServices } from './context.ts';
import { ownerEvidenceOf } from './owner-evidence-of.ts';

const tags = ['research'];

const op = defineOwnerOperation<CampaignDoorServices>();

/**
 * Publishing research reports (issue 16 item 7) for the campaign's owner of record, inside the
 * owner API scope: publish the STIX bundle of some sources (TLP:CLEAR campaigns only), withdraw it.
 */
export const researchReportOperations = [
  op({
    method: 'POST',
    path: '/v1/research/reports/:report_id/withdraw',
    tags,
    summary: 'Withdraw a published report; the JSON body may be {}',
    params: z.object({ report_id: idOf('rpt', 'report') }).strict(),
    body: z.object({}).strict().optional(),
    run: async (ctx, { ownerId, params }) => ctx.researchReports.withdraw(ownerId, params.report_id),
  }),
  op({
    method: 'POST',
    path: '/v1/research/campaigns/:campaign_id/reports',
    tags,
    summary: 'Publish a report: the STIX bundle of up to 20 sources, public at /v1/public/research-reports',
    params: z
      .object({
        campaign_id: idOf('cmp', 'campaign'),
      })
      .strict(),
    body: z
      .object({
        title: plainLine(1, 200),
        summary: plainText(1, 4_000),
        evidence_ids: z.array(idOf('evd', 'evidence')).min(1).max(MAX_STIX_SOURCES),
      })
      .strict(),
    status: 201,
    run: async (ctx, { ownerId, params, body }) => {
      const report = await ctx.researchReports.publish(
        ownerId,
        params.campaign_id,
        { title: body.title, summary: body.summary, evidenceIds: body.evidence_ids },
        ownerEvidenceOf(ctx, ownerId),
      );
      return {
        ...report,
        next_steps: [
          { action: 'Anyone can read it now', method: 'GET', path: report.bundle_url },
          {
            action: 'Take it off the public list',
            method: 'POST',
            path: `/v1/research/reports/${report.report_id}/withdraw`,
          },
        ],
      };
    },
  }),
];
