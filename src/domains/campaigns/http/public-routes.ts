import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BOARD_PURPOSES, slugArg } from '../boards/board-rules.ts';
import type { PublicBoards } from '../boards/public-boards.ts';
import type { ResearchReports } from '../findings/reports.ts';

const tags = ['public'];

/**
 * Campaigns' public lists (SPEC "Public (no token)"): the research reports owners published and
 * the task boards, inside the one public scope (its rate limit per client address).
 */
export function campaignPublicRoutes(
  app: FastifyInstance,
  ctx: { researchReports: ResearchReports; publicBoards: PublicBoards },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/v1/public/research-reports',
    {
      schema: {
        tags,
        summary: 'Research reports campaign owners chose to publish (none by default)',
        querystring: z
          .object({
            limit: z.coerce.number().int().min(1).max(100).default(20),
            cursor: z.string().max(500).optional(),
          })
          .strict(),
      },
    },
    async (req) => ctx.researchReports.listPublished({ limit: req.query.limit, cursor: req.query.cursor }),
  );

  r.get(
    '/v1/public/research-reports/:report_id',
    {
      schema: {
        tags,
        summary: "A published report's STIX 2.1 bundle, as frozen when it was published",
        params: z
          .object({ report_id: z.string().regex(/^rpt_[0-9A-Za-z]{1,64}$/, 'a report id starts with rpt_') })
          .strict(),
      },
    },
    async (req, reply) =>
      reply
        .type('application/stix+json;version=2.1')
        .send(await ctx.researchReports.publishedBundle(req.params.report_id)),
  );

  r.get(
    '/v1/public/boards',
    {
      schema: {
        tags,
        summary: 'Published task boards, newest first; next_cursor and previous_cursor keep the filters',
        querystring: z
          .object({
            q: z
              .string()
              .trim()
              .min(1)
              .max(200)
              .optional()
              .describe('Words in a board title or a listed task.'),
            purpose: z.enum(BOARD_PURPOSES).optional(),
            status: z
              .enum(['OPEN', 'CLOSED'])
              .optional()
              .describe('OPEN: at least one listed task can be taken now; CLOSED: none can.'),
            funded: z
              .enum(['true', 'false'])
              .optional()
              .describe('true: at least one listed task carries a funded reward; false: none does.'),
            limit: z.coerce.number().int().min(1).max(50).default(20),
            cursor: z
              .string()
              .max(500)
              .optional()
              .describe('next_cursor or previous_cursor, with the same filters.'),
          })
          .strict(),
      },
    },
    async (req) => {
      const { q, purpose, status, funded, limit, cursor } = req.query;
      return ctx.publicBoards.list(
        { q, purpose, status, funded: funded === undefined ? undefined : funded === 'true' },
        { limit, cursor },
      );
    },
  );

  r.get(
    '/v1/public/boards/:slug',
    {
      schema: {
        tags,
        summary: 'A published board: its listed tasks with their terms, reward, funding and availability',
        params: z.object({ slug: slugArg }).strict(),
      },
    },
    async (req) => ctx.publicBoards.get(req.params.slug),
  );
}
