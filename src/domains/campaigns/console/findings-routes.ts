import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { parseForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleOwner } from '../../identity/index.ts';
import { CAMPAIGN_ID, FINDING_STATUSES, findingSettingsForm, stixForm } from './campaign-forms.ts';
import { memberNames } from './campaign-views.ts';
import type { ConsoleContext } from './context.ts';
import { type FindingsPageView, findingsPage } from './findings-views.ts';
import { ownerEvidenceOf } from './owner-evidence-of.ts';

/**
 * The console's findings page of a campaign (issue 16 item 4): findings with their reviews, a
 * page at a time with the service's cursor and a status filter; the research settings form; and
 * the STIX download as a plain form post that answers the bundle as an attachment (no script).
 */

const hidden = { schema: { hide: true } };
const PAGE = 20;

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  settings:
    'Settings saved. The next STIX export carries the marking chosen, and reviews follow the rule chosen.',
};

type Query = Record<string, unknown>;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;

/** The status filter and cursor of a request, when they have the expected shape (else the first page). */
function listing(req: FastifyRequest) {
  const q = queryOf(req);
  const status = (FINDING_STATUSES as readonly unknown[]).includes(q.status)
    ? (q.status as string)
    : undefined;
  const cursor = typeof q.cursor === 'string' && /^[\w.-]{1,500}$/.test(q.cursor) ? q.cursor : undefined;
  return { status, cursor };
}

/** What the STIX form held, to fill it in again after a refusal. */
function stixDraft(body: unknown): { ticked: string[]; moreIds: string } {
  const b = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>;
  const ticked = [b.evidence_ids]
    .flat()
    .filter((v): v is string => typeof v === 'string')
    .slice(0, 200);
  return { ticked, moreIds: typeof b.more_ids === 'string' ? b.more_ids.slice(0, 3_000) : '' };
}

export function findingRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const campaignId = (req: FastifyRequest) => {
    const id = (req.params as { campaign_id: string }).campaign_id;
    if (!CAMPAIGN_ID.test(id)) throw new DomainError('NOT_FOUND', 'No such campaign.');
    return id;
  };

  /** The page, as asked for or again with a problem. Another owner's campaign is NOT_FOUND (404). */
  const show = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<FindingsPageView, 'flash' | 'error' | 'stixDraft'> = {},
  ) => {
    const id = campaignId(req);
    const { status, cursor } = listing(req);
    const campaign = await ctx.campaigns.campaign(owner.id, id);
    const answer = await ctx.ownerFindings.list(owner.id, id, { status, limit: PAGE, cursor });
    const view: FindingsPageView = {
      owner,
      csrf: sessionToken(ctx, req),
      campaign,
      names: memberNames(campaign.members),
      answer,
      status,
      cursor,
      ...extra,
    };
    return sendPage(reply, code, findingsPage(view));
  };

  app.get('/console/campaigns/:campaign_id/findings', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return show(req, reply, owner, 200, { flash: DONE[String(queryOf(req).done ?? '')] });
  });

  app.post('/console/campaigns/:campaign_id/findings/settings', hidden, async (req, reply) => {
    const id = campaignId(req);
    const owner = guardPost(ctx, req, reply, `/console/campaigns/${id}/findings`);
    if (!owner) return reply;
    const form = parseForm(findingSettingsForm, req.body);
    if (!form.ok) return show(req, reply, owner, 422, { error: form.message });
    try {
      await ctx.ownerFindings.updateSettings(owner.id, id, form.data);
    } catch (err) {
      // Another owner's campaign stays the 404 page; a closed one is said on the page.
      if (!(err instanceof DomainError) || err.code === 'NOT_FOUND') throw err;
      return show(req, reply, owner, httpStatusOf(err.code), { error: err.message });
    }
    return seeOther(reply, `/console/campaigns/${id}/findings?done=settings#settings`);
  });

  app.post('/console/campaigns/:campaign_id/stix', hidden, async (req, reply) => {
    const id = campaignId(req);
    const owner = guardPost(ctx, req, reply, `/console/campaigns/${id}/findings`);
    if (!owner) return reply;
    const form = parseForm(stixForm, req.body);
    if (!form.ok)
      return show(req, reply, owner, 422, { error: form.message, stixDraft: stixDraft(req.body) });
    let json: string;
    try {
      ({ json } = await ctx.ownerFindings.exportStix(
        owner.id,
        id,
        form.data,
        ownerEvidenceOf(ctx, owner.id),
      ));
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      // NOT_FOUND here names a source the form asked for; the page itself is checked again by show.
      const code = err.code === 'NOT_FOUND' ? 422 : httpStatusOf(err.code);
      return show(req, reply, owner, code, { error: err.message, stixDraft: stixDraft(req.body) });
    }
    // The serialised bundle as built: re-exporting the same sources gives the same bytes.
    return reply
      .type('application/stix+json;version=2.1')
      .header('content-disposition', `attachment; filename="${id}.stix.json"`)
      .header('x-content-type-options', 'nosniff')
      .send(json);
  });
}
