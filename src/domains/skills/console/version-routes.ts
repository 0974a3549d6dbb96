import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { parseForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleContext } from './context.ts';
import {
  blockForm,
  cursorOf,
  deleteBytesForm,
  doneOf,
  GRANT_ID,
  grantForm,
  hidden,
  idParam,
  OWN,
  PAGE,
  queryOf,
  reasonForm,
  refusal,
  versionIdOf,
  WINDOW,
} from './forms.ts';
import { type VersionPageView, versionPage } from './version-views.ts';

/**
 * One skill version for its owner (docs/skills.md): terms, files, SKILL.md as untrusted text,
 * the download link, grants, block, archive of its skill and privacy byte deletion. Each action
 * is a form post with the CSRF token calling one service method, then back to the page with a
 * fixed confirmation (PRG), or the page again with the refusal. Another owner's version is the
 * console's not-found page.
 */
export function skillVersionRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const skills = ctx.skills;

  /** The version's SKILL.md as text, read window by window (an owner's read is no delivery). */
  const skillMdOfVersion = async (
    ownerId: string,
    versionId: string,
  ): Promise<VersionPageView['skillMd']> => {
    let text = '';
    let offset: number | null = 0;
    try {
      for (let i = 0; offset !== null && i < 64; i++) {
        const w = await skills.versionFile(ownerId, versionId, {
          context: OWN,
          path: 'SKILL.md',
          offset,
          max_chars: WINDOW,
        });
        text += w.text;
        offset = w.range.next_offset;
      }
    } catch (err) {
      if (err instanceof DomainError && err.code !== 'NOT_FOUND') return { unavailable: err.message };
      throw err;
    }
    return { text };
  };

  const showVersion = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: Pick<VersionPageView, 'flash' | 'error'>,
  ) => {
    const id = versionIdOf(req);
    // The history first: it is NOT_FOUND for another owner's version, as for a missing one.
    const history = await ctx.skillHistory.history(owner.id, id, { limit: 50 });
    const [version, grants, activity] = await Promise.all([
      skills.getVersion(owner.id, id, OWN),
      ctx.skillGrants.list(owner.id, id, { limit: 50, cursor: cursorOf(queryOf(req).grants_cursor) }),
      ctx.skillHistory.activity(owner.id, id, { limit: PAGE }),
    ]);
    const skillMd = version.bytes_deleted
      ? {
          unavailable:
            'The file bytes of this version were deleted for privacy; its hashes and history remain.',
        }
      : await skillMdOfVersion(owner.id, id);
    const view = {
      owner,
      csrf: sessionToken(ctx, req),
      version,
      skillMd,
      grants,
      history,
      activity,
      ...extra,
    };
    return sendPage(reply, status, versionPage(view));
  };

  app.get('/console/skills/versions/:version_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showVersion(req, reply, owner, 200, { flash: doneOf(req) });
  });

  /**
   * One action on a version from its page: the form, one service call answering which
   * confirmation to show, then back to the page (PRG); a refusal is shown on the page, which is
   * read again (so another owner's version answers 404).
   */
  const versionAction = <T extends z.ZodType>(
    suffix: string,
    schema: T,
    act: (owner: ConsoleOwner, versionId: string, data: z.infer<T>, req: FastifyRequest) => Promise<string>,
  ) =>
    app.post(`/console/skills/versions/:version_id/${suffix}`, hidden, async (req, reply) => {
      const id = versionIdOf(req);
      const owner = guardPost(ctx, req, reply, `/console/skills/versions/${id}`);
      if (!owner) return reply;
      const form = parseForm(schema, req.body);
      if (!form.ok) return showVersion(req, reply, owner, 422, { error: form.message });
      try {
        const done = await act(owner, id, form.data, req);
        return seeOther(reply, done.startsWith('/') ? done : `/console/skills/versions/${id}?done=${done}`);
      } catch (err) {
        const r = refusal(err);
        return showVersion(req, reply, owner, r.status, { error: r.message });
      }
    });

  versionAction('grants', grantForm, async (owner, id, data) => {
    const grant = await ctx.skillGrants.grant(owner.id, id, data);
    return grant.created ? 'granted' : 'regranted';
  });

  versionAction('grants/:grant_id/revoke', reasonForm, async (owner, _id, data, req) => {
    const grantId = idParam(req, 'grant_id', GRANT_ID, 'skill grant');
    const grant = await ctx.skillGrants.revoke(owner.id, grantId, data.reason);
    return `/console/skills/versions/${grant.version_id}?done=revoked`;
  });

  versionAction('block', blockForm, async (owner, id, data) => {
    const operator = await ctx.operators.isOperator(owner.id);
    const moved = await ctx.skillLifecycle.block(owner.id, operator, id, { reason: data.reason });
    return moved.changed ? 'blocked' : 'unchanged';
  });

  versionAction('unblock', reasonForm, async (owner, id, data) => {
    const operator = await ctx.operators.isOperator(owner.id);
    const moved = await ctx.skillLifecycle.block(owner.id, operator, id, {
      unblock: true,
      reason: data.reason,
    });
    return moved.changed ? 'unblocked' : 'unchanged';
  });

  /** Archive and unarchive act on the version's skill (its history names it, for its owner only). */
  const archive =
    (unarchive: boolean) =>
    async (owner: ConsoleOwner, id: string, data: { reason?: string | undefined }) => {
      const { skill_id } = await ctx.skillHistory.history(owner.id, id, { limit: 1 });
      const moved = await ctx.skillLifecycle.archive(owner.id, skill_id, { reason: data.reason, unarchive });
      return moved.changed ? (unarchive ? 'unarchived' : 'archived') : 'unchanged';
    };
  versionAction('archive', reasonForm, archive(false));
  versionAction('unarchive', reasonForm, archive(true));

  versionAction('delete-bytes', deleteBytesForm, async (owner, id, data) => {
    const deleted = await ctx.skillLifecycle.deleteBytes(owner.id, id, data.reason);
    return deleted.changed ? 'deleted' : 'unchanged';
  });
}
