import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../../kernel/errors.ts';
import { STATIC_ASSET, sendPage, sessionToken } from '../../../web/console/context.ts';
import { requireOwner } from '../../../web/console/guards.ts';
import { READING_LIMITS } from '../../reading/index.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import { CAMPAIGN_ID } from './campaign-forms.ts';
import type { ConsoleContext } from './context.ts';
import { importPage, previewPage } from './research-views.ts';

/**
 * The console's research pages (issue 16): the import form, whose same-origin script
 * (`/console/import.js`) sends the file as JSON to `POST /v1/research/imports`, and an import's
 * text a page at a time. Reading pages only: the import itself is the owner API's.
 */

const hidden = { schema: { hide: true } };

/** A file, not an inline script: the console's CSP allows scripts from this origin only. */
const SCRIPT = readFileSync(
  path.join(path.dirname(fileURLToPath(import.meta.url)), 'assets', 'import.js'),
  'utf8',
);

const EVIDENCE_ID = /^evd_[0-9A-Za-z]{1,64}$/;
const PAGE = /^\d{1,2}$/;

const query = (req: FastifyRequest) => (req.query ?? {}) as Record<string, unknown>;

export function researchRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  app.get('/console/import.js', STATIC_ASSET, async (_req, reply) =>
    reply.type('text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(SCRIPT),
  );

  app.get('/console/research/import', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const asked = query(req).campaign_id;
    const chosen = typeof asked === 'string' && CAMPAIGN_ID.test(asked) ? asked : undefined;
    const { campaigns } = await ctx.campaigns.overview(owner.id);
    const open = campaigns
      .filter((c) => c.status !== 'CLOSED')
      .map((c) => ({ campaign_id: c.campaign_id, title: c.title }));
    let tasks: Array<{ task_id: string; title: string; status: string }> = [];
    let nextTasks: string | null = null;
    if (chosen) {
      // Another owner's campaign is NOT_FOUND here as everywhere; an older one of the owner's
      // (beyond the first page of the overview) is added to the choices.
      const campaign = await ctx.campaigns.campaign(owner.id, chosen);
      if (campaign.status === 'CLOSED') {
        throw new DomainError(
          'CAMPAIGN_CLOSED',
          `Campaign ${chosen} is closed: files can no longer be imported into it.`,
        );
      }
      if (!open.some((c) => c.campaign_id === chosen)) {
        open.push({ campaign_id: campaign.campaign_id, title: campaign.title });
      }
      const page = await ctx.campaigns.taskChoices(
        owner.id,
        chosen,
        { limit: CAMPAIGN_LIMITS.taskChoices.default },
        ctx.secret,
      );
      tasks = page.choices;
      nextTasks = page.next_cursor;
    }
    const view = {
      owner,
      csrf: sessionToken(ctx, req),
      campaigns: open,
      campaignId: chosen,
      tasks,
      nextTasks,
    };
    return sendPage(reply, 200, importPage(view));
  });

  app.get('/console/research/evidence/:evidence_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const id = (req.params as { evidence_id: string }).evidence_id;
    if (!EVIDENCE_ID.test(id)) throw new DomainError('NOT_FOUND', 'No such evidence.');
    const asked = query(req).page;
    const n = typeof asked === 'string' && PAGE.test(asked) ? Number(asked) : 1;
    const page = Math.min(Math.max(n, READING_LIMITS.previewPage.min), READING_LIMITS.previewPage.max);
    const preview = await ctx.ownerEvidence.preview(owner.id, id, page);
    return sendPage(reply, 200, previewPage({ owner, csrf: sessionToken(ctx, req), preview }));
  });
}
