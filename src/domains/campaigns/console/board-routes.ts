import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { DomainError, httpStatusOf } from '../../../kernel/errors.ts';
import { seeOther, sendPage, sessionToken } from '../../../web/console/context.ts';
import { formValues, parseForm } from '../../../web/console/fields.ts';
import { guardPost, requireOwner } from '../../../web/console/guards.ts';
import type { ConsoleOwner } from '../../identity/index.ts';
import { BOARD_PURPOSES, MAX_BOARD_TASKS, slugArg } from '../boards/board-rules.ts';
import {
  type BoardChoices,
  type BoardDraft,
  type BoardPageView,
  boardListPage,
  boardPage,
  newBoardPage,
} from './board-views.ts';
import { CAMPAIGN_ID, TASK_ID } from './campaign-forms.ts';
import type { ConsoleContext } from './context.ts';

/**
 * Public task boards for their owner (docs/boards.md): the owner's boards, publishing one from a
 * campaign's open-pickup tasks, one board with its edit form, and Withdraw. Thin, like every
 * console route: the session (and CSRF token on posts), the form, one BoardService method (the
 * same ones `/v1/boards` calls), then render or redirect. Another owner's board or campaign is
 * the console's not-found page.
 */

const hidden = { schema: { hide: true } };
const csrf = z.string().max(200).optional();

/** Fixed confirmations after a redirect: the query names one, never carries text to show. */
const DONE: Record<string, string> = {
  published: 'Published. Anyone can read the board at its public URL now; members see it on the ledger.',
  changed: 'Saved. The public board shows the change now; every task kept kept its ref.',
  withdrawn:
    'Withdrawn. The board is gone from the public; its name stays taken and its task refs are never given out again.',
  already_withdrawn: 'That board was already withdrawn: nothing changed.',
};

const title = z
  .string({ message: 'Enter a title.' })
  .trim()
  .min(1, 'Enter a title.')
  .max(200, 'The title must be at most 200 characters.');
const purpose = z.enum(BOARD_PURPOSES, 'Choose what the work is for: WORK, DEMO, TEST or UNCLASSIFIED.');
/** The ticked tasks (one `task_ids` field each), in the order sent, each once. */
const taskIds = z
  .union([z.string().max(100), z.array(z.string().max(100)).max(200, 'Too many tasks ticked.')])
  .optional()
  .transform((v) => [...new Set(v === undefined ? [] : [v].flat())])
  .pipe(
    z
      .array(z.string().regex(TASK_ID, 'A task id looks like task_ followed by letters and digits.'))
      .min(1, 'Tick at least one task to list.')
      .max(MAX_BOARD_TASKS, `A board lists at most ${MAX_BOARD_TASKS} tasks: untick some.`),
  );

const publishForm = z
  .object({
    csrf,
    slug: z
      .string({ message: 'Enter a slug.' })
      .trim()
      .refine(
        (s) => slugArg.safeParse(s).success,
        'The slug is 3-64 lower-case letters, digits and inner hyphens, e.g. moorland-birds.',
      ),
    title,
    purpose,
    task_ids: taskIds,
  })
  .strict();

const editForm = z.object({ csrf, title, purpose, task_ids: taskIds }).strict();

const withdrawForm = z
  .object({
    csrf,
    confirm: z.literal('yes', 'Tick the box to confirm that the board should leave the public for good.'),
  })
  .strict();

/** What was typed, to fill the form in again: the text fields and the tasks ticked, in order. */
function draftOf(body: unknown): BoardDraft {
  const values = formValues(body, 300);
  const raw = body && typeof body === 'object' ? (body as Record<string, unknown>).task_ids : undefined;
  const ticked = [raw]
    .flat()
    .filter((v): v is string => typeof v === 'string' && TASK_ID.test(v))
    .slice(0, 200);
  return { slug: values.slug, title: values.title, purpose: values.purpose, taskIds: [...new Set(ticked)] };
}

/** The next move after a refusal, in words for the person at the console (the message says what). */
const NEXT_MOVE: Record<string, string> = {
  TASK_NOT_LISTABLE:
    'Untick it, or change its conditions first: only tasks whose conditions say participation: OPEN and publish_contract: true, and that are not cancelled, may be listed. The list below says why each other task cannot be.',
  CONFLICT: 'Choose another slug: a board’s name is never used twice, withdrawn boards’ included.',
  CAMPAIGN_CLOSED: 'A closed campaign gets no new board.',
  CAMPAIGN_STOPPING: 'A stopping campaign gets no new board; resume it on its page first.',
  NOT_FOUND: 'Untick it: a board lists tasks of its own campaign only. Reload the page for the current list.',
};

/** A refusal as the console shows it: the tasks named by title where it names tasks, then what to do. */
function refusal(err: DomainError, choices: BoardChoices | null): string {
  const titles = new Map((choices?.tasks ?? []).map((t) => [t.task_id, t.title]));
  const named = (id: string) => (titles.has(id) ? `“${titles.get(id)}” (${id})` : id);
  let message = err.message;
  const problems = err.details.tasks;
  if (err.code === 'TASK_NOT_LISTABLE' && Array.isArray(problems)) {
    const each = (problems as Array<{ task_id: string; reason: string }>).map(
      (p) => `${named(p.task_id)}: ${p.reason}`,
    );
    message = `${each.length === 1 ? 'A task' : `${each.length} tasks`} cannot be listed on a public board: ${each.join('; ')}.`;
  }
  const next = NEXT_MOVE[err.code];
  return next ? `${message} ${next}` : message;
}

/** A refusal that belongs on the form: anything but the page's own campaign or board being absent. */
const onTheForm = (err: unknown): err is DomainError =>
  err instanceof DomainError && (err.code !== 'NOT_FOUND' || Array.isArray(err.details.task_ids));

type Query = Record<string, unknown>;
const queryOf = (req: FastifyRequest) => (req.query ?? {}) as Query;
const done = (req: FastifyRequest) => DONE[String(queryOf(req).done ?? '')];

/** A path value of the expected shape; anything else is the console's not-found page. */
function campaignOf(req: FastifyRequest): string {
  const id = (req.params as Record<string, unknown>).campaign_id;
  if (typeof id !== 'string' || !CAMPAIGN_ID.test(id))
    throw new DomainError('NOT_FOUND', 'No such campaign.');
  return id;
}
function slugOf(req: FastifyRequest): string {
  const parsed = slugArg.safeParse((req.params as Record<string, unknown>).slug);
  if (!parsed.success) throw new DomainError('NOT_FOUND', 'No such board.');
  return parsed.data;
}

export function boardRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  const boards = ctx.boards;

  app.get('/console/boards', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    // The campaign chooser is a GET form: on to that campaign's publish page.
    const from = queryOf(req).publish_from;
    if (typeof from === 'string' && CAMPAIGN_ID.test(from)) {
      return seeOther(reply, `/console/campaigns/${from}/boards/new`);
    }
    const listed = await boards.list(owner.id);
    const overview = await ctx.campaigns.overview(owner.id);
    const view = {
      owner,
      csrf: sessionToken(ctx, req),
      boards: listed.boards,
      campaigns: overview.campaigns
        .filter((c) => c.status === 'ACTIVE')
        .map((c) => ({ campaign_id: c.campaign_id, title: c.title })),
      moreCampaigns: overview.next_before !== null,
      flash: done(req),
    };
    return sendPage(reply, 200, boardListPage(view));
  });

  /** The publish form of one campaign, as asked for or again with a refusal and what was typed. */
  const showNew = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: { draft?: BoardDraft; err?: DomainError; error?: string } = {},
  ) => {
    const choices = await boards.listableTasks(owner.id, campaignOf(req), extra.draft?.taskIds ?? []);
    const error = extra.err ? refusal(extra.err, choices) : extra.error;
    const view = { owner, csrf: sessionToken(ctx, req), choices, draft: extra.draft, error };
    return sendPage(reply, status, newBoardPage(view));
  };

  app.get('/console/campaigns/:campaign_id/boards/new', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showNew(req, reply, owner, 200);
  });

  app.post('/console/campaigns/:campaign_id/boards/new', hidden, async (req, reply) => {
    const campaignId = campaignOf(req);
    const owner = guardPost(ctx, req, reply, `/console/campaigns/${campaignId}/boards/new`);
    if (!owner) return reply;
    const draft = draftOf(req.body);
    const form = parseForm(publishForm, req.body);
    if (!form.ok) return showNew(req, reply, owner, 422, { draft, error: form.message });
    const f = form.data;
    try {
      const board = await boards.publish(owner.id, {
        slug: f.slug,
        title: f.title,
        purpose: f.purpose,
        campaignId,
        taskIds: f.task_ids,
      });
      return seeOther(reply, `/console/boards/${board.slug}?done=published`);
    } catch (err) {
      if (!onTheForm(err)) throw err;
      return showNew(req, reply, owner, httpStatusOf(err.code), { draft, err });
    }
  });

  /** One board, as asked for or again with a refusal and what was typed. */
  const showBoard = async (
    req: FastifyRequest,
    reply: FastifyReply,
    owner: ConsoleOwner,
    status: number,
    extra: { flash?: string | undefined; draft?: BoardDraft; err?: DomainError; error?: string } = {},
  ) => {
    const board = await boards.get(owner.id, slugOf(req));
    const include = [...board.tasks.map((t) => t.task_id), ...(extra.draft?.taskIds ?? [])];
    const choices = board.withdrawn_at
      ? null
      : await boards.listableTasks(owner.id, board.campaign_id, include);
    const error = extra.err ? refusal(extra.err, choices) : extra.error;
    const view: BoardPageView = {
      owner,
      csrf: sessionToken(ctx, req),
      board,
      choices,
      draft: extra.draft,
      flash: extra.flash,
      error,
    };
    return sendPage(reply, status, boardPage(view));
  };

  app.get('/console/boards/:slug', hidden, async (req, reply) => {
    const owner = requireOwner(req, reply);
    if (!owner) return reply;
    return showBoard(req, reply, owner, 200, { flash: done(req) });
  });

  app.post('/console/boards/:slug', hidden, async (req, reply) => {
    const slug = slugOf(req);
    const owner = guardPost(ctx, req, reply, `/console/boards/${slug}`);
    if (!owner) return reply;
    const draft = draftOf(req.body);
    const form = parseForm(editForm, req.body);
    if (!form.ok) return showBoard(req, reply, owner, 422, { draft, error: form.message });
    const f = form.data;
    const current = await boards.get(owner.id, slug);
    if (current.withdrawn_at) {
      return showBoard(req, reply, owner, 409, { error: 'This board was withdrawn: it cannot be changed.' });
    }
    // The same tasks in the same order are no change to the list (and no ledger event).
    const listed = current.tasks.map((t) => t.task_id);
    const same = listed.length === f.task_ids.length && listed.every((id, i) => id === f.task_ids[i]);
    try {
      await boards.update(owner.id, slug, {
        title: f.title,
        purpose: f.purpose,
        taskIds: same ? undefined : f.task_ids,
      });
      return seeOther(reply, `/console/boards/${slug}?done=changed`);
    } catch (err) {
      if (!onTheForm(err)) throw err;
      return showBoard(req, reply, owner, httpStatusOf(err.code), { draft, err });
    }
  });

  app.post('/console/boards/:slug/withdraw', hidden, async (req, reply) => {
    const slug = slugOf(req);
    const owner = guardPost(ctx, req, reply, `/console/boards/${slug}`);
    if (!owner) return reply;
    const form = parseForm(withdrawForm, req.body);
    if (!form.ok) return showBoard(req, reply, owner, 422, { error: form.message });
    try {
      await boards.withdraw(owner.id, slug);
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'NOT_FOUND') throw err;
      // Pressed twice (an old page, a second tab): said as such; another owner's board stays 404.
      const board = await boards.get(owner.id, slug);
      if (!board.withdrawn_at) throw err;
      return seeOther(reply, '/console/boards?done=already_withdrawn');
    }
    return seeOther(reply, '/console/boards?done=withdrawn');
  });
}
