import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { parseForm, tokenOnlyForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleOwner } from '../owners.ts';
import { auditPage } from './audit-views.ts';
import type { ConsoleContext } from './context.ts';
import { createdIdentityPage, newIdentityPage } from './create-views.ts';
import {
  bootstrapForm,
  createIdentityForm,
  messageForm,
  modeForm,
  projectKeyForm,
  renameForm,
  revokeForm,
  suspendForm,
} from './forms.ts';
import { detailPage, listPage } from './identity-views.ts';

const hidden = { schema: { hide: true } };
const AGENT_ID = /^agt_[0-9A-Z]{26}$/;
const KEY_ID = /^key_[0-9A-Z]{26}$/;

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  welcome: 'Welcome! Your owner account is ready.',
  activated: 'Public reading is active. Connected sessions see the new tools at once.',
  deactivated:
    'Deactivated everywhere, its campaigns included: it can only describe itself, and the leases it held are released within a minute.',
  campaign_only: 'Campaign work only: it works in its campaigns, and reads only under task leases.',
  suspended:
    'Suspended. The identity is told why; nothing works for it until you lift it, and its leases are released within a minute.',
  unsuspended: 'Suspension lifted. The identity is back in the mode it had.',
  renamed: 'Renamed.',
  messaged: 'Sent. It reaches the agent with its next tool call; open sessions are told now.',
  revoked: 'Revoked. Every credential of this identity stopped working.',
  key_revoked: 'The project key was revoked; it fails from the very next request.',
};

type Params = { agent_id: string; key_id?: string };

/** A secret the detail page shows once, right after it was issued. */
type Shown = {
  newKey?: { project_key: string; expires_at: string };
  newBootstrap?: { bootstrap_token: string; expires_at: string };
};

/** The owner's identities: list, detail, activation, matching, rename, revocation, project keys, audit log. */
export function identityRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const m = ctx.management;
  const parts = ctx.parts.agentPage ?? [];
  const confirmations: Record<string, string> = Object.assign({}, DONE, ...parts.map((p) => p.done));
  const done = (req: FastifyRequest) =>
    confirmations[String((req.query as Record<string, unknown>)?.done ?? '')];
  const agentId = (req: FastifyRequest) => {
    const id = (req.params as Params).agent_id;
    if (!AGENT_ID.test(id)) throw new DomainError('NOT_FOUND', 'No such identity.');
    return id;
  };

  /** The detail page, after a change or with a problem to show. */
  const showDetail = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: Shown & { flash?: string | undefined; error?: string },
  ) => {
    const { agent, keys } = await m.getIdentity(owner.id, agentId(req));
    const csrf = sessionToken(ctx, req);
    const path = `/console/identities/${agent.id}`;
    const panels = await Promise.all(parts.map((part) => part.panel({ owner, csrf, agent, path })));
    return sendPage(
      reply,
      status,
      detailPage({
        owner,
        csrf,
        agent,
        keys,
        now: ctx.clock.now(),
        panels: panels.filter((p) => p !== ''),
        ...extra,
      }),
    );
  };

  app.get('/console', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const identities = await m.listIdentities(owner.id);
    return sendPage(
      reply,
      200,
      listPage({ owner, csrf: sessionToken(ctx, req), identities, flash: done(req) }),
    );
  });

  app.get('/console/identities/new', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return sendPage(reply, 200, newIdentityPage({ owner, csrf: sessionToken(ctx, req) }));
  });

  app.post('/console/identities/new', hidden, async (req, reply) => {
    const owner = guardPost(ctx, req, reply);
    if (!owner) return reply;
    const csrf = sessionToken(ctx, req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const values = {
      display_name: typeof body.display_name === 'string' ? body.display_name.slice(0, 200) : undefined,
      runtime: typeof body.runtime === 'string' ? body.runtime.slice(0, 200) : undefined,
      days: typeof body.days === 'string' ? body.days.slice(0, 8) : undefined,
    };
    const form = parseForm(createIdentityForm, req.body);
    if (!form.ok) return sendPage(reply, 422, newIdentityPage({ owner, csrf, error: form.message, values }));
    const { display_name, runtime, days } = form.data;
    const created = await m.createIdentity(owner.id, {
      displayName: display_name,
      runtime,
      bootstrapDays: days,
    });
    return sendPage(
      reply,
      201,
      createdIdentityPage({ owner, csrf, baseUrl: ctx.baseUrl, name: display_name, ...created }),
    );
  });

  app.get('/console/identities/:agent_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showDetail(req, reply, owner, 200, { flash: done(req) });
  });

  /** A change from the detail page: CSRF, form, the service call, then back to the page. */
  const change = <T extends z.ZodType>(
    suffix: string,
    schema: T,
    act: (owner: ConsoleOwner, id: string, data: z.infer<T>, req: FastifyRequest) => Promise<string>,
  ) =>
    app.post(`/console/identities/:agent_id/${suffix}`, hidden, async (req, reply) => {
      const owner = guardPost(ctx, req, reply);
      if (!owner) return reply;
      const id = agentId(req);
      const form = parseForm(schema, req.body);
      if (!form.ok) return showDetail(req, reply, owner, 422, { error: form.message });
      try {
        const outcome = await act(owner, id, form.data, req);
        return seeOther(reply, `/console/identities/${id}?done=${outcome}`);
      } catch (err) {
        // A refusal about this identity (already revoked, bad name) is shown on its page.
        if (err instanceof DomainError && err.code !== 'NOT_FOUND') {
          return showDetail(req, reply, owner, httpStatusOf(err.code), { error: err.message });
        }
        throw err;
      }
    });

  change('mode', modeForm, async (owner, id, data) => {
    await m.setMode(owner.id, id, data.mode);
    return data.mode === 'READ' ? 'activated' : data.mode === 'CAMPAIGN' ? 'campaign_only' : 'deactivated';
  });
  change('suspend', suspendForm, async (owner, id, data) => {
    await m.suspend(owner.id, id, data.reason);
    return 'suspended';
  });
  change('unsuspend', tokenOnlyForm, async (owner, id) => {
    await m.unsuspend(owner.id, id);
    return 'unsuspended';
  });
  change('rename', renameForm, async (owner, id, data) => {
    await m.rename(owner.id, id, data.display_name);
    return 'renamed';
  });
  change('messages', messageForm, async (owner, id, data) => {
    await m.messageAgent(owner.id, id, data.text);
    return 'messaged';
  });
  // The forms of the sections other areas add (agent-parts.ts), handled like the page's own.
  for (const part of parts) for (const c of part.changes) change(c.suffix, c.schema, c.act);
  change('revoke', revokeForm, async (owner, id) => {
    await m.revoke(owner.id, id);
    return 'revoked';
  });
  change('keys/:key_id/revoke', tokenOnlyForm, async (owner, _id, _data, req) => {
    const keyId = (req.params as Params).key_id ?? '';
    if (!KEY_ID.test(keyId)) throw new DomainError('NOT_FOUND', 'No such project key.');
    await m.revokeProjectKey(owner.id, keyId);
    return 'key_revoked';
  });

  /** A secret issued from the detail page (a project key, a bootstrap token), shown on it once. */
  const issue = <T extends z.ZodType>(
    suffix: string,
    schema: T,
    act: (owner: ConsoleOwner, id: string, data: z.infer<T>) => Promise<Shown>,
  ) =>
    app.post(`/console/identities/:agent_id/${suffix}`, hidden, async (req, reply) => {
      const owner = guardPost(ctx, req, reply);
      if (!owner) return reply;
      const form = parseForm(schema, req.body);
      if (!form.ok) return showDetail(req, reply, owner, 422, { error: form.message });
      try {
        return showDetail(req, reply, owner, 201, await act(owner, agentId(req), form.data));
      } catch (err) {
        if (err instanceof DomainError && err.code !== 'NOT_FOUND') {
          return showDetail(req, reply, owner, httpStatusOf(err.code), { error: err.message });
        }
        throw err;
      }
    });

  issue('keys', projectKeyForm, async (owner, id, data) => ({
    newKey: await m.createProjectKey(owner.id, id, data.days),
  }));
  issue('bootstrap', bootstrapForm, async (owner, id, data) => ({
    newBootstrap: await m.reissueBootstrap(owner.id, id, data.days),
  }));

  app.get('/console/audit', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    const entries = await m.auditLog(owner.id);
    return sendPage(reply, 200, auditPage({ owner, csrf: sessionToken(ctx, req), entries }));
  });
}
