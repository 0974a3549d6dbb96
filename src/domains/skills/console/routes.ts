import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../../../kernel/errors.ts';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { formValues, parseForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import { SKILL_LIMITS } from '../limits.ts';
import type { ConsoleContext } from './context.ts';
import {
  cursorOf,
  doneOf,
  draftIdOf,
  hidden,
  newDraftForm,
  OWN,
  PAGE,
  publishForm,
  queryOf,
  refusal,
  SKILL_MD_BODY,
  skillMdForm,
  WINDOW,
} from './forms.ts';
import { skillVersionRoutes } from './version-routes.ts';
import { type DraftPageView, draftPage, type SkillListView, skillListPage } from './views.ts';

/**
 * Skills for their owners (docs/skills.md): the account's versions and drafts with a form to
 * start a draft, and one draft (its problems, the SKILL.md editor, Publish); the version's page
 * and its actions are version-routes.ts. Thin, like every console route: the session (and
 * CSRF token on posts), the form, one skills service method (the ones `/v1/skills…` calls), then
 * a redirect with a fixed confirmation (PRG) or the page again with the refusal. Another owner's
 * draft or version is the console's not-found page. With skills off (CAIRN_SKILLS=off) the list
 * says so and offers nothing; every other page is the refusal.
 */

export function skillRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const skills = ctx.skills;

  const showList = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: Pick<SkillListView, 'flash' | 'error' | 'values'>,
  ) => {
    const view = { owner, csrf: sessionToken(ctx, req), ...extra };
    if (!skills.capabilities().enabled)
      return sendPage(reply, status, skillListPage({ ...view, data: null }));
    const q = queryOf(req);
    const versionsCursor = cursorOf(q.versions_cursor);
    const draftsCursor = cursorOf(q.drafts_cursor);
    const [versions, drafts] = await Promise.all([
      skills.list(owner.id, OWN, { limit: PAGE, cursor: versionsCursor }),
      skills.listDrafts(owner.id, { limit: PAGE, cursor: draftsCursor }),
    ]);
    // One after another: a page of drafts is small, and a pool is not filled by one page.
    const checked = [];
    for (const d of drafts.drafts) {
      const v = await skills.validate(owner.id, d.draft_id);
      checked.push({ ...d, valid: v.valid, problem_count: v.problems.length });
    }
    const data = {
      versions,
      drafts: { drafts: checked, next_cursor: drafts.next_cursor },
      paged: versionsCursor !== undefined || draftsCursor !== undefined,
    };
    return sendPage(reply, status, skillListPage({ ...view, data }));
  };

  /** The draft's SKILL.md as stored, read window by window. */
  const skillMdOfDraft = async (ownerId: string, draftId: string): Promise<string> => {
    let text = '';
    let offset: number | null = 0;
    for (let i = 0; offset !== null && i < 64; i++) {
      const w = await skills.draftFile(ownerId, draftId, { path: 'SKILL.md', offset, max_chars: WINDOW });
      text += w.text;
      offset = w.range.next_offset;
    }
    return text;
  };

  const showDraft = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: Pick<DraftPageView, 'flash' | 'error' | 'unsaved'>,
  ) => {
    const draft = await skills.getDraft(owner.id, draftIdOf(req));
    const hasSkillMd = draft.files.some((f) => f.path === 'SKILL.md');
    const skillMd = hasSkillMd ? await skillMdOfDraft(owner.id, draft.draft_id) : null;
    const view = { owner, csrf: sessionToken(ctx, req), draft, skillMd, ...extra };
    return sendPage(reply, status, draftPage(view));
  };

  app.get('/console/skills', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showList(req, reply, owner, 200, { flash: doneOf(req) });
  });

  app.post('/console/skills/drafts', hidden, async (req, reply) => {
    const owner = guardPost(ctx, req, reply, '/console/skills');
    if (!owner) return reply;
    const values = formValues(req.body, 2_000);
    const form = parseForm(newDraftForm, req.body);
    if (!form.ok) return showList(req, reply, owner, 422, { error: form.message, values });
    try {
      const draft = await skills.createDraft(owner.id, form.data);
      return seeOther(reply, `/console/skills/drafts/${draft.draft_id}?done=created`);
    } catch (err) {
      const r = refusal(err);
      return showList(req, reply, owner, r.status, { error: r.message, values });
    }
  });

  app.get('/console/skills/drafts/:draft_id', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showDraft(req, reply, owner, 200, { flash: doneOf(req) });
  });

  app.post(
    '/console/skills/drafts/:draft_id/skill-md',
    { ...hidden, bodyLimit: SKILL_MD_BODY },
    async (req, reply) => {
      const id = draftIdOf(req);
      const owner = guardPost(ctx, req, reply, `/console/skills/drafts/${id}`);
      if (!owner) return reply;
      const typed = formValues(req.body, SKILL_LIMITS.package.fileBytes).content;
      const form = parseForm(skillMdForm, req.body);
      if (!form.ok) return showDraft(req, reply, owner, 422, { error: form.message, unsaved: typed });
      try {
        const { revision, content } = form.data;
        const bytes = Buffer.from(content, 'utf8');
        await skills.editDraft(owner.id, id, { kind: 'put', revision, path: 'SKILL.md', bytes });
        return seeOther(reply, `/console/skills/drafts/${id}?done=saved`);
      } catch (err) {
        const r = refusal(err);
        return showDraft(req, reply, owner, r.status, { error: r.message, unsaved: form.data.content });
      }
    },
  );

  app.post('/console/skills/drafts/:draft_id/publish', hidden, async (req, reply) => {
    const id = draftIdOf(req);
    const owner = guardPost(ctx, req, reply, `/console/skills/drafts/${id}`);
    if (!owner) return reply;
    const form = parseForm(publishForm, req.body);
    if (!form.ok) return showDraft(req, reply, owner, 422, { error: form.message });
    try {
      const version = await skills.publish(owner.id, id, form.data.revision);
      return seeOther(reply, `/console/skills/versions/${version.version_id}?done=published`);
    } catch (err) {
      const r = refusal(err);
      const stale = err instanceof DomainError && err.code === 'SKILL_DRAFT_REVISION_STALE';
      const message = stale
        ? `${err.message} Nothing was published: the page shows the draft as it is now; publish again if it is what you want.`
        : r.message;
      return showDraft(req, reply, owner, r.status, { error: message });
    }
  });

  skillVersionRoutes(app, ctx);
}
