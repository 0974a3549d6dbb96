import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../../kernel/errors.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { parseForm, tokenOnlyForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleContext } from './context.ts';
import { ownerTokenForm } from './forms.ts';
import { ownerTokensPage } from './owner-token-views.ts';

const hidden = { schema: { hide: true } };
const TOKEN_ID = /^otk_[0-9A-Z]{26}$/;

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  revoked: 'Revoked. The token stopped working at once.',
};

/** The console page of the owner's API tokens: list, create (shown once), revoke. */
export function ownerTokenRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const tokenId = (req: FastifyRequest) => {
    const id = (req.params as Record<string, string>).token_id ?? '';
    if (!TOKEN_ID.test(id)) throw new DomainError('NOT_FOUND', 'No such API token of yours.');
    return id;
  };

  app.get('/console/tokens', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const tokens = await ctx.owners.tokens.list(owner.id);
    const flash = DONE[String((req.query as Record<string, unknown>)?.done ?? '')];
    return sendPage(reply, 200, ownerTokensPage({ owner, csrf: sessionToken(ctx, req), tokens, flash }));
  });

  app.post('/console/tokens', hidden, async (req, reply) => {
    const owner = guardPost(ctx, req, reply, '/console/tokens');
    if (!owner) return reply;
    const csrf = sessionToken(ctx, req);
    const form = parseForm(ownerTokenForm, req.body);
    if (!form.ok) {
      const tokens = await ctx.owners.tokens.list(owner.id);
      return sendPage(reply, 422, ownerTokensPage({ owner, csrf, tokens, error: form.message }));
    }
    const fresh = await ctx.owners.tokens.create(owner.id, form.data);
    const tokens = await ctx.owners.tokens.list(owner.id);
    // Shown in this answer (never cached: the console sends no-store), not after a redirect.
    return sendPage(reply, 200, ownerTokensPage({ owner, csrf, tokens, fresh }));
  });

  app.post('/console/tokens/:token_id/revoke', hidden, async (req, reply) => {
    const id = tokenId(req);
    const owner = guardPost(ctx, req, reply, '/console/tokens');
    if (!owner) return reply;
    const form = parseForm(tokenOnlyForm, req.body);
    if (!form.ok) throw new DomainError('VALIDATION_FAILED', form.message);
    await ctx.owners.tokens.revoke(owner.id, id);
    return seeOther(reply, '/console/tokens?done=revoked');
  });
}
