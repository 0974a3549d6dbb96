import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { parseForm, tokenOnlyForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import { idOf } from '../../../web/console/id-params.ts';
import type { ConsoleOwner } from '../../identity/index.ts';
import type { ConsoleContext } from './context.ts';
import { type MailPageView, mailPage } from './mail-views.ts';

/**
 * A campaign's mailbox page for its owner of record (docs/mail.md): address, check-mail
 * instruction, delivery state and attempts; the stored mail, ticked and deleted to make room;
 * requests to approve or decline and grants to revoke.
 * Thin, like every console route: the session (and CSRF token on posts), the form, one
 * MailService method (the same ones `/v1/campaigns/{id}/mail…` calls), then render or redirect.
 * Another owner's campaign is the console's not-found page, as on the campaign page.
 */

const hidden = { schema: { hide: true } };
const PAGE = 50;
const CAMPAIGN_ID = idOf('cmp', 'campaign');
const REQUEST_ID = idOf('mar', 'mail access request');
const AGENT_ID = idOf('agt', 'agent');
const ATTEMPT_ID = /^mat_[0-9A-Za-z]{1,64}$/;
const MAIL_ID = /^mail_[0-9A-Za-z]{1,64}$/;
/** Mails one press of "Delete selected" deletes, at most (a page shows PAGE). */
const MAX_DELETE = 100;

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  approved: 'Approved. The agent can read the campaign’s mail now, starting with campaign_mail_list.',
  declined:
    'Declined. The agent sees DECLINED in campaign_mail_access_status and may ask again with a new reason.',
  revoked: 'Revoked. The agent’s next read or wait is refused; it may ask again with a new reason.',
};

const decisionForm = z
  .object({
    csrf: z.string().max(200).optional(),
    decision: z.enum(['approve', 'decline'], 'Press Approve or Decline.'),
  })
  .strict();

/**
 * "Delete selected": the mails ticked (one `mail_ids` field each), 1 to MAX_DELETE, and the page
 * of stored mail the form was on (to come back to it).
 */
const deleteForm = z
  .object({
    csrf: z.string().max(200).optional(),
    mail_ids: z
      .union([
        z.string().max(100),
        z.array(z.string().max(100)).max(MAX_DELETE, `Tick at most ${MAX_DELETE} mails at once.`),
      ])
      .optional(),
    mail_before: z.string().max(100).optional(),
  })
  .strict()
  .transform((f) => ({
    ids: [...new Set(f.mail_ids === undefined ? [] : [f.mail_ids].flat())],
    before: f.mail_before && MAIL_ID.test(f.mail_before) ? f.mail_before : null,
  }))
  .pipe(
    z.object({
      ids: z
        .array(z.string().regex(MAIL_ID, 'A mail id looks like mail_ followed by letters and digits.'))
        .min(1, 'Tick at least one mail to delete.'),
      before: z.string().nullable(),
    }),
  );

/** What a deletion redirect names (counts only, never text): said on the page it lands on. */
function deletedOf(q: Query): MailPageView['deleted'] {
  const n = (v: unknown) => (typeof v === 'string' && /^\d{1,12}$/.test(v) ? Number(v) : null);
  const count = n(q.deleted);
  const bytes = n(q.freed);
  if (q.done !== 'deleted' || count === null || bytes === null) return undefined;
  return { count, bytes, evidenceKept: n(q.kept) ?? 0 };
}

type Query = Record<string, unknown>;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;

/** A path id of the expected kind; anything else is the console's not-found page. */
function pathId(req: FastifyRequest, name: string, schema: z.ZodString, what: string): string {
  const parsed = schema.safeParse((req.params as Record<string, unknown>)[name]);
  if (!parsed.success) throw new DomainError('NOT_FOUND', `No such ${what}.`);
  return parsed.data;
}

export function mailRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  /** The mailbox page, as asked for or again with a problem. */
  const showMailbox = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    code: number,
    extra: Pick<MailPageView, 'flash' | 'error' | 'deleted'> = {},
  ) => {
    const campaignId = pathId(req, 'campaign_id', CAMPAIGN_ID, 'campaign');
    const q = queryOf(req);
    const before =
      typeof q.attempts_before === 'string' && ATTEMPT_ID.test(q.attempts_before)
        ? q.attempts_before
        : undefined;
    const mailBefore =
      typeof q.mail_before === 'string' && MAIL_ID.test(q.mail_before) ? q.mail_before : undefined;
    const mailbox = await ctx.mail.mailbox(owner.id, campaignId);
    const attempts = await ctx.mail.attempts(owner.id, campaignId, {
      ...(before ? { before } : {}),
      limit: PAGE,
    });
    const stored = await ctx.mail.messages(owner.id, campaignId, {
      ...(mailBefore ? { before: mailBefore } : {}),
      limit: PAGE,
    });
    const view: MailPageView = {
      owner,
      csrf: sessionToken(ctx, req),
      mailbox,
      attempts,
      before,
      stored,
      mailBefore,
      pageSize: PAGE,
      ...extra,
    };
    return sendPage(reply, code, mailPage(view));
  };

  app.get('/console/campaigns/:campaign_id/mail', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const q = queryOf(req);
    return showMailbox(req, reply, owner, 200, { flash: DONE[String(q.done ?? '')], deleted: deletedOf(q) });
  });

  /**
   * A form on the mailbox page: CSRF, the form, the service call, then back to the page with the
   * outcome named (`act` answers the query and anchor to land on). A request already decided (or
   * a grant already gone) is said on the page, as is a ticked mail that is gone already (an old
   * page, a second tab); another owner's campaign, or a request not of this campaign, is the
   * not-found page.
   */
  const change = <T extends z.ZodType>(
    suffix: string,
    schema: T,
    act: (owner: ConsoleOwner, campaignId: string, req: FastifyRequest, data: z.infer<T>) => Promise<string>,
  ) =>
    app.post(`/console/campaigns/:campaign_id/mail/${suffix}`, hidden, async (req, reply) => {
      const campaignId = pathId(req, 'campaign_id', CAMPAIGN_ID, 'campaign');
      const path = `/console/campaigns/${campaignId}/mail`;
      const owner = guardPost(ctx, req, reply, path);
      if (!owner) return reply;
      const form = parseForm(schema, req.body);
      if (!form.ok) return showMailbox(req, reply, owner, 422, { error: form.message });
      try {
        return seeOther(reply, `${path}?${await act(owner, campaignId, req, form.data)}`);
      } catch (err) {
        const goneMail = err instanceof DomainError && Array.isArray(err.details.mail_ids);
        if (!(err instanceof DomainError) || (err.code === 'NOT_FOUND' && !goneMail)) throw err;
        return showMailbox(req, reply, owner, httpStatusOf(err.code), { error: err.message });
      }
    });

  change('requests/:request_id', decisionForm, async (owner, campaignId, req, data) => {
    const requestId = pathId(req, 'request_id', REQUEST_ID, 'mail access request');
    const approve = data.decision === 'approve';
    await ctx.mail.decide(owner.id, campaignId, requestId, approve ? 'APPROVE' : 'DECLINE');
    return approve ? 'done=approved' : 'done=declined';
  });

  change('grants/:agent_id/revoke', tokenOnlyForm, async (owner, campaignId, req) => {
    await ctx.mail.revoke(owner.id, campaignId, pathId(req, 'agent_id', AGENT_ID, 'agent'));
    return 'done=revoked';
  });

  change('messages/delete', deleteForm, async (owner, campaignId, _req, data) => {
    const done = await ctx.mail.deleteMessages(owner.id, campaignId, data.ids);
    const query = new URLSearchParams({
      done: 'deleted',
      deleted: String(done.deleted),
      freed: String(done.bytes_freed),
      kept: String(done.evidence_kept.length),
      ...(data.before ? { mail_before: data.before } : {}),
    });
    return `${query}#stored-mail`;
  });
}
