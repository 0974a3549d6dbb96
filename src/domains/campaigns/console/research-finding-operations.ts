import { z } from 'zod';
import { defineOwnerOperation } from '../../../framework/index.ts';
import { idOf } from '../../../web/console/id-params.ts';
import { MAX_STIX_SOURCES, TLP_LEVELS, type TlpLevel } from '../../research/index.ts';
import type { CampaignDoorServices } from './context.ts';
import { ownerEvidenceOf } from './owner-evidence-of.ts';

const tags = ['research'];
const campaignParams = z.object({ campaign_id: idOf('cmp', 'campaign') }).strict();

const op = defineOwnerOperation<CampaignDoorServices>();

/**
 * Findings and the STIX export for the campaign's owner of record (SPEC "Security research"):
 * inside the owner API scope (console session or owner API token, JSON bodies only).
 */
export const researchFindingOperations = [
  op({
    method: 'GET',
    path: '/v1/research/campaigns/:campaign_id/findings',
    tags,
    summary: "A campaign's findings with their reviews, newest first",
    params: campaignParams,
    query: z
      .object({
        status: z.enum(['UNREVIEWED', 'SUPPORTED', 'CONTESTED', 'INSUFFICIENT_EVIDENCE']).optional(),
        limit: z.coerce.number().int().min(1).max(200).default(50),
        cursor: z.string().max(500).optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, params, query }) =>
      ctx.ownerFindings.list(ownerId, params.campaign_id, {
        status: query.status,
        limit: query.limit,
        cursor: query.cursor,
      }),
  }),
  op({
    method: 'GET',
    path: '/v1/research/findings/:evidence_id',
    tags,
    summary: 'One finding (its id is an evidence id) with its reviews',
    params: z.object({ evidence_id: idOf('evd', 'evidence') }).strict(),
    run: async (ctx, { ownerId, params }) => ctx.ownerFindings.get(ownerId, params.evidence_id),
  }),
  op({
    method: 'POST',
    path: '/v1/research/campaigns/:campaign_id/settings',
    tags,
    summary: "Changes the campaign's research settings: the TLP of its STIX exports, same-owner reviews",
    params: campaignParams,
    body: z
      .object({
        tlp: z.enum(TLP_LEVELS as [TlpLevel, ...TlpLevel[]]).optional(),
        allow_same_owner_review: z.boolean().optional(),
      })
      .strict(),
    run: async (ctx, { ownerId, params, body }) =>
      ctx.ownerFindings.updateSettings(ownerId, params.campaign_id, {
        tlp: body.tlp,
        allowSameOwnerReview: body.allow_same_owner_review,
      }),
  }),
  op({
    method: 'POST',
    path: '/v1/research/campaigns/:campaign_id/stix',
    tags,
    summary: `One STIX 2.1 bundle of up to ${MAX_STIX_SOURCES} sources of the campaign`,
    params: campaignParams,
    body: z.object({ evidence_ids: z.array(idOf('evd', 'evidence')).min(1).max(MAX_STIX_SOURCES) }).strict(),
    run: async (ctx, { ownerId, params, body }, { reply }) => {
      const { json } = await ctx.ownerFindings.exportStix(
        ownerId,
        params.campaign_id,
        body.evidence_ids,
        ownerEvidenceOf(ctx, ownerId),
      );
      // The serialised bundle as built: re-exporting the same sources gives the same bytes.
      return reply
        .type('application/stix+json;version=2.1')
        .header('content-disposition', `attachment; filename="${params.campaign_id}.stix.json"`)
        .send(json);
    },
  }),
];
