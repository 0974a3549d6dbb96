import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idOf } from '../../../web/console/id-params.ts';
import { MAX_STIX_SOURCES, TLP_LEVELS, type TlpLevel } from '../../research/index.ts';
import type { ConsoleContext } from './context.ts';
import { ownerEvidenceOf } from './owner-evidence-of.ts';

const tags = ['research'];
const campaignParams = z.object({ campaign_id: idOf('cmp', 'campaign') }).strict();

/**
 * Findings and the STIX export for the campaign's owner of record (SPEC "Security research"):
 * inside the owner API scope (console session or owner API token, JSON bodies only).
 */
export async function researchFindingRoutes(
  api: FastifyInstance,
  ctx: ConsoleContext,
  ownerOf: (req: { owner?: { id: string } | undefined }) => string,
): Promise<void> {
  const r = api.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/v1/research/campaigns/:campaign_id/findings',
    {
      schema: {
        tags,
        summary: "A campaign's findings with their reviews, newest first",
        params: campaignParams,
        querystring: z
          .object({
            status: z.enum(['UNREVIEWED', 'SUPPORTED', 'CONTESTED', 'INSUFFICIENT_EVIDENCE']).optional(),
            limit: z.coerce.number().int().min(1).max(200).default(50),
            cursor: z.string().max(500).optional(),
          })
          .strict(),
      },
    },
    async (req) =>
      ctx.ownerFindings.list(ownerOf(req), req.params.campaign_id, {
        status: req.query.status,
        limit: req.query.limit,
        cursor: req.query.cursor,
      }),
  );

  r.get(
    '/v1/research/findings/:evidence_id',
    {
      schema: {
        tags,
        summary: 'One finding (its id is an evidence id) with its reviews',
        params: z.object({ evidence_id: idOf('evd', 'evidence') }).strict(),
      },
    },
    async (req) => ctx.ownerFindings.get(ownerOf(req), req.params.evidence_id),
  );

  r.post(
    '/v1/research/campaigns/:campaign_id/stix',
    {
      schema: {
        tags,
        summary: `One STIX 2.1 bundle of up to ${MAX_STIX_SOURCES} sources of the campaign`,
        params: campaignParams,
        body: z
          .object({ evidence_ids: z.array(idOf('evd', 'evidence')).min(1).max(MAX_STIX_SOURCES) })
          .strict(),
      },
    },
    async (req, reply) => {
      const ownerId = ownerOf(req);
      const { json } = await ctx.ownerFindings.exportStix(
        ownerId,
        req.params.campaign_id,
        req.body.evidence_ids,
        ownerEvidenceOf(ctx, ownerId),
      );
      // The serialised bundle as built: re-exporting the same sources gives the same bytes.
      return reply
        .type('application/stix+json;version=2.1')
        .header('content-disposition', `attachment; filename="${req.params.campaign_id}.stix.json"`)
        .send(json);
    },
  );

  r.post(
    '/v1/research/campaigns/:campaign_id/settings',
    {
      schema: {
        tags,
        summary: "Changes the campaign's research settings: the TLP of its STIX exports, same-owner reviews",
        params: campaignParams,
        body: z
          .object({
            tlp: z.enum(TLP_LEVELS as [TlpLevel, ...TlpLevel[]]).optional(),
            allow_same_owner_review: z.boolean().optional(),
          })
          .strict(),
      },
    },
    async (req) =>
      ctx.ownerFindings.updateSettings(ownerOf(req), req.params.campaign_id, {
        tlp: req.body.tlp,
        allowSameOwnerReview: req.body.allow_same_owner_review,
      }),
  );
}
