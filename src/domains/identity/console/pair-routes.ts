import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formField, sendPage, sessionToken } from '../../../web/console/context.ts';
import { parseForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleOwner } from '../owners.ts';
import type { ConsoleContext } from './context.ts';
import { pairDecisionForm } from './forms.ts';
import { approvalPage, codeEntryPage, decidedPage } from './pair-views.ts';

const hidden = { schema: { hide: true } };
const MAX_CODE_CHARS = 32;

/** /pair: where an owner lands from an agent's pairing link, reviews the request and decides. */
export function pairRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const unknown = (code: string) =>
    `No pending pairing request has the code ${code}. It may have expired (requests last 15 minutes), ` +
    'been decided already, or been mistyped. Ask the agent to start pairing again if needed.';

  /** The request for a code, or the code form again with why not (false: the reply is sent). */
  const lookUp = async (req: FastifyRequest, reply: FastifyReply, owner: ConsoleOwner, code: string) => {
    const csrf = sessionToken(ctx, req);
    if (!code || code.length > MAX_CODE_CHARS) {
      const error = code ? 'That is not a pairing code.' : 'Enter the pairing code your agent shows.';
      void sendPage(reply, 422, codeEntryPage({ owner, csrf, error }));
      return null;
    }
    const request = await ctx.device.lookUpForOwner(owner.id, req.ip, code);
    if (!request) void sendPage(reply, 404, codeEntryPage({ owner, csrf, code, error: unknown(code) }));
    return request;
  };

  app.get('/pair', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const raw = (req.query as Record<string, unknown>)?.code;
    const code = typeof raw === 'string' ? raw.trim() : '';
    const csrf = sessionToken(ctx, req);
    if (!code) return sendPage(reply, 200, codeEntryPage({ owner, csrf }));
    const request = await lookUp(req, reply, owner, code);
    if (!request) return reply;
    return sendPage(reply, 200, approvalPage({ owner, csrf, request }));
  });

  app.post('/pair', hidden, async (req, reply) => {
    const given = formField(req, 'code')?.slice(0, MAX_CODE_CHARS);
    const owner = guardPost(ctx, req, reply, given ? `/pair?code=${encodeURIComponent(given)}` : '/pair');
    if (!owner) return reply;
    const csrf = sessionToken(ctx, req);
    const request = await lookUp(req, reply, owner, given ?? '');
    if (!request) return reply;
    const form = parseForm(pairDecisionForm, req.body);
    if (!form.ok) return sendPage(reply, 422, approvalPage({ owner, csrf, request, error: form.message }));
    const approve = form.data.decision === 'approve';
    const activateRead = approve && form.data.activate_read === 'on';
    const result = await ctx.device.decide(owner.id, form.data.code, { approve, activateRead });
    return sendPage(
      reply,
      200,
      decidedPage({
        owner,
        csrf,
        approved: result.status === 'APPROVED',
        name: request.display_name,
        agentId: result.agent_id,
        activated: activateRead,
      }),
    );
  });
}
