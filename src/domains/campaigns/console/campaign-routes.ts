import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { formValues, parseForm, tokenOnlyForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleOwner } from '../../identity/index.ts';
import { rewardOf } from '../rewards/reward-terms.ts';
import {
  AGENT_ID,
  CAMPAIGN_ID,
  cancelTaskForm,
  closeCampaignForm,
  commentForm,
  decisionForm,
  inviteForm,
  MESSAGE_ID,
  newCampaignForm,
  stopCampaignForm,
  TASK_ID,
  taskForm,
} from './campaign-forms.ts';
import { campaignPage } from './campaign-page-views.ts';
import { campaignListPage, type Draft, newCampaignPage } from './campaign-views.ts';
import type { ConsoleContext } from './context.ts';
import { refusal } from './rewards-views.ts';

const hidden = { schema: { hide: true } };

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  created: 'Campaign created. Its first coordinator sees it in campaign_list and campaign_status now.',
  invited: 'Invited. Your agent accepts with campaign_join.',
  invited_pending:
    'Invited. The agent belongs to another owner: it can join once that owner accepts in their console.',
  admitted: 'Admitted: the applicant is now an active member.',
  role_changed: 'Role changed. The member’s tools follow with its next call.',
  unchanged: 'Nothing to change: that member already has that role.',
  published: 'Task published. Members see it in task_list.',
  published_escrowed:
    'Task published. Its reward and the platform fee left your balance; the reward is held in escrow until you approve a verified result.',
  cancelled: 'Task cancelled. An open lease ended with it.',
  cancelled_refunded: 'Task cancelled. Its escrowed reward and its platform fee went back to your balance.',
  posted: 'Posted. Members read it labelled OWNER_COMMENT.',
  stopped:
    'Campaign stopped. Running leases finish and their work can still be submitted and verified; nothing new is accepted. Resume it or close it below.',
  resumed: 'Campaign resumed. It takes new tasks, claims, members, mail and board entries again.',
  closed: 'Campaign closed. Members keep reading its records; nothing new is accepted.',
  closed_cancelled:
    'Campaign closed. Its unfinished tasks were cancelled; escrowed rewards and their fees went back to your balance.',
  accepted: 'Accepted. Your agent can now join the campaign with campaign_join.',
  declined: 'Declined. The invitation is closed.',
};

/**
 * Which confirmation an invitation earns, from what inviteAgent reports: a role change of an
 * active member carries no `next` step, an admitted applicant does.
 */
function inviteOutcome(r: { membership: string; changed: boolean }): string {
  if (r.membership === 'OWNER_PENDING') return 'invited_pending';
  if (r.membership === 'INVITED') return 'invited';
  if (!r.changed) return 'unchanged';
  return 'next' in r ? 'admitted' : 'role_changed';
}

type Query = Record<string, unknown>;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;
/** A query value when it has the expected shape; anything else is ignored (the first page). */
const param = (q: Query, name: string, shape: RegExp) => {
  const value = q[name];
  return typeof value === 'string' && shape.test(value) ? value : undefined;
};

/**
 * The owner's campaign pages: the list with invitations waiting for them, creating a campaign,
 * and one campaign's page with its members, tasks, messages and ledger. Thin: check the session
 * (and CSRF token on posts), parse the form, call one CampaignOwnerService method, render.
 */
export function campaignRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const service = ctx.campaigns;
  const parts = ctx.parts.campaignPage ?? [];
  const confirmations: Record<string, string> = Object.assign({}, DONE, ...parts.map((p) => p.done));
  const done = (req: FastifyRequest) => confirmations[String(queryOf(req).done ?? '')];
  const campaignId = (req: FastifyRequest) => {
    const id = (req.params as { campaign_id: string }).campaign_id;
    if (!CAMPAIGN_ID.test(id)) throw new DomainError('NOT_FOUND', 'No such campaign.');
    return id;
  };

  app.get('/console/campaigns', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const overview = await service.overview(owner.id, param(queryOf(req), 'before', CAMPAIGN_ID));
    const csrf = sessionToken(ctx, req);
    return sendPage(reply, 200, campaignListPage({ owner, csrf, overview, flash: done(req) }));
  });

  app.post('/console/campaigns/:campaign_id/invitations/:agent_id', hidden, async (req, reply) => {
    const owner = guardPost(ctx, req, reply, '/console/campaigns');
    if (!owner) return reply;
    const id = campaignId(req);
    const agentId = (req.params as { agent_id: string }).agent_id;
    const form = parseForm(decisionForm, req.body);
    const refuse = async (status: number, error: string) => {
      const overview = await service.overview(owner.id);
      const csrf = sessionToken(ctx, req);
      return sendPage(reply, status, campaignListPage({ owner, csrf, overview, error }));
    };
    if (!form.ok) return refuse(422, form.message);
    if (!AGENT_ID.test(agentId)) return refuse(404, 'No invitation of that agent waits for you.');
    try {
      const accept = form.data.decision === 'accept';
      await service.decideInvitation(owner.id, id, agentId, accept);
      return seeOther(reply, `/console/campaigns?done=${accept ? 'accepted' : 'declined'}`);
    } catch (err) {
      if (err instanceof DomainError) return refuse(httpStatusOf(err.code), err.message);
      throw err;
    }
  });

  app.get('/console/campaigns/new', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const agents = await service.agents(owner.id);
    return sendPage(reply, 200, newCampaignPage({ owner, csrf: sessionToken(ctx, req), agents }));
  });

  app.post('/console/campaigns/new', hidden, async (req, reply) => {
    const owner = guardPost(ctx, req, reply, '/console/campaigns/new');
    if (!owner) return reply;
    const again = async (status: number, error: string) => {
      const agents = await service.agents(owner.id);
      const csrf = sessionToken(ctx, req);
      const values = formValues(req.body);
      return sendPage(reply, status, newCampaignPage({ owner, csrf, agents, error, values }));
    };
    const form = parseForm(newCampaignForm, req.body);
    if (!form.ok) return again(422, form.message);
    try {
      const created = await service.createCampaign(owner.id, form.data.coordinatorId, form.data.campaign);
      return seeOther(reply, `/console/campaigns/${created.campaign_id}?done=created`);
    } catch (err) {
      // One transaction: a refusal (an agent that is not the owner's or not active) left nothing behind.
      if (err instanceof DomainError)
        return again(err.code === 'NOT_FOUND' ? 422 : httpStatusOf(err.code), err.message);
      throw err;
    }
  });

  /** The campaign page, as asked for or again with a problem and what was typed. */
  const showCampaign = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: { flash?: string | undefined; error?: string; draft?: Draft },
  ) => {
    const q = queryOf(req);
    const ledgerBefore = param(q, 'ledger_before', /^\d{1,15}$/);
    const data = await service.campaignPage(owner.id, campaignId(req), {
      tasksBefore: param(q, 'tasks_before', TASK_ID),
      messagesBefore: param(q, 'messages_before', MESSAGE_ID),
      ledgerBeforeSeq: ledgerBefore === undefined ? undefined : Number(ledgerBefore),
    });
    const csrf = sessionToken(ctx, req);
    const { campaign } = data;
    const path = `/console/campaigns/${campaign.campaign_id}`;
    const panels = await Promise.all(
      parts.map((part) =>
        part.panel({
          owner,
          csrf,
          campaign,
          path,
          draft: extra.draft?.form === part.form ? extra.draft.values : undefined,
        }),
      ),
    );
    return sendPage(
      reply,
      status,
      campaignPage({
        owner,
        csrf,
        data,
        feePct: ctx.config.platformFeePct,
        panels: panels.filter((p) => p !== ''),
        ...extra,
      }),
    );
  };

  app.get('/console/campaigns/:campaign_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showCampaign(req, reply, owner, 200, { flash: done(req) });
  });

  /**
   * A form on the campaign page: CSRF, the form, the service call, then back to the page (with
   * the outcome named in `done`), or where the act says (`{location}`). A refusal is shown on
   * the page with what was typed; re-rendering checks ownership again, so another owner's
   * campaign answers 404 either way.
   */
  const change = <T extends z.ZodType>(
    suffix: string,
    form: string,
    schema: T,
    act: (owner: ConsoleOwner, id: string, data: z.infer<T>) => Promise<string | { location: string }>,
  ) =>
    app.post(`/console/campaigns/:campaign_id/${suffix}`, hidden, async (req, reply) => {
      const id = campaignId(req);
      const owner = guardPost(ctx, req, reply, `/console/campaigns/${id}`);
      if (!owner) return reply;
      const draft = (values = formValues(req.body)) => ({ form, values });
      const parsed = parseForm(schema, req.body);
      if (!parsed.ok) return showCampaign(req, reply, owner, 422, { error: parsed.message, draft: draft() });
      try {
        const outcome = await act(owner, id, parsed.data);
        const location =
          typeof outcome === 'string' ? `/console/campaigns/${id}?done=${outcome}` : outcome.location;
        return seeOther(reply, location);
      } catch (err) {
        if (!(err instanceof DomainError)) throw err;
        // A secret is not echoed back into the form it was refused from.
        const values = formValues(req.body);
        if (err.code === 'CREDENTIAL_IN_INPUT') delete values.content;
        // NOT_FOUND here is about what the form named (an agent id); the page itself exists.
        const status = err.code === 'NOT_FOUND' ? 422 : httpStatusOf(err.code);
        return showCampaign(req, reply, owner, status, { error: refusal(err), draft: draft(values) });
      }
    });

  change('invite', 'invite', inviteForm, async (owner, id, data) =>
    inviteOutcome(await service.invite(owner.id, id, data.agentId, data.role)),
  );
  change('tasks', 'task', taskForm, async (owner, id, { rewardAsked, ...task }) => {
    // rewardOf adds the platform fee and refuses a fraction of a cent (VALIDATION_FAILED).
    const reward = rewardOf(rewardAsked, ctx.config.platformFeePct);
    const published = await service.publishTask(owner.id, id, { ...task, reward });
    // A reward the balance did not cover waits for funds: its funding page is the next step.
    if (published.reward_status === 'AWAITING_FUNDING') {
      return { location: `/console/rewards/fund/${published.task_id}?done=published` };
    }
    return published.reward_status === 'ESCROWED' ? 'published_escrowed' : 'published';
  });
  // The task id travels in the form (one form per task row); cancelling is the owner's act alone.
  change('tasks/cancel', 'cancel', cancelTaskForm, async (owner, _id, data) => {
    const cancelled = await ctx.campaigns.cancelTask(owner.id, data.taskId, data.reason);
    return cancelled.reward_status === 'REFUNDED' ? 'cancelled_refunded' : 'cancelled';
  });
  change('stop', 'stop', stopCampaignForm, async (owner, id, data) => {
    await service.stop(owner.id, id, data.reason);
    return 'stopped';
  });
  change('resume', 'stop', tokenOnlyForm, async (owner, id) => {
    await service.resume(owner.id, id);
    return 'resumed';
  });
  change('close', 'close', closeCampaignForm, async (owner, id, data) => {
    const closed = await service.close(owner.id, id, data.reason);
    return closed.settled.tasks_cancelled > 0 ? 'closed_cancelled' : 'closed';
  });
  change('messages', 'message', commentForm, async (owner, id, data) => {
    await service.postComment(owner.id, id, data);
    return 'posted';
  });
  // The forms of the sections other areas add (campaign-parts.ts), handled like the page's own.
  for (const part of parts) for (const c of part.changes) change(c.suffix, part.form, c.schema, c.act);
}
