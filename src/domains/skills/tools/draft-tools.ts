import { z } from 'zod';
import { defineTool, type OperationContext } from '../../../framework/index.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { maxCharsArg, offsetArg } from '../../reading/index.ts';
import { draftWindow, presentDraft } from '../drafts/draft-view.ts';
import { createDraft, draftOf, putFile, removeFile, updateDraft, validateDraft } from '../drafts/drafts.ts';
import { SKILL_LIMITS } from '../limits.ts';
import { actorOf, SKILLS_AUDIENCE } from '../policy.ts';
import { publishVersion } from '../publish.ts';
import { pathArg } from './version-tools.ts';

/** The Skills tools that write drafts and publish versions (docs/skills.md). */

type Ctx = OperationContext<object>;
const group = 'Skills' as const;
const audience = SKILLS_AUDIENCE;
const P = SKILL_LIMITS.package;

export const skillNameArg = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'lowercase letters, digits and single hyphens, not at either end')
  .describe(
    'The package name (1-64 lowercase letters, digits and single hyphens); SKILL.md’s name must match it.',
  );
export const draftIdArg = z
  .string()
  .max(96)
  .regex(/^sdr_[0-9A-Z]{26}$/, 'a draft id starts with sdr_')
  .describe('The draft (sdr_…).');
export const revisionArg = z
  .number()
  .int()
  .min(1)
  .describe('The draft’s current revision (skill_draft_get); an edit against an older one is refused.');
export const descriptionArg = z
  .string()
  .trim()
  .min(1)
  .max(P.descriptionChars)
  .describe(
    'What the skill does and when to use it (1-1024 characters); written into SKILL.md’s frontmatter.',
  );
export const tagsArg = z
  .array(z.string().trim().min(1).max(P.tagChars))
  .max(P.tags)
  .describe(`Up to ${P.tags} tags for skill_list’s tags filter.`);

function draftNext(draftId: string, revision: number) {
  return [
    {
      tool: 'skill_draft_file_put',
      action: 'Add or replace a file (SKILL.md, scripts/…, references/…, assets/…).',
      arguments: { draft_id: draftId, revision },
    },
    {
      tool: 'skill_draft_validate',
      action: 'Check the draft against the Agent Skills format.',
      arguments: { draft_id: draftId },
    },
    {
      tool: 'skill_version_publish',
      action: 'Publish it as an immutable private version once valid.',
      arguments: { draft_id: draftId, revision },
    },
  ];
}

export const skillDraftCreate = defineTool({
  name: 'skill_draft_create',
  group,
  description:
    'Start a private skill draft (Agent Skills format). It begins with a SKILL.md holding name and description in its frontmatter; add files, validate, then publish.',
  args: { name: skillNameArg, description: descriptionArg.optional(), tags: tagsArg.optional() },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    const draft = await createDraft(ctx.ex, actorOf(ctx.caller), input, ctx.clock.now());
    return {
      draft_id: draft.id,
      skill_id: draft.skillId,
      name: draft.name,
      revision: draft.revision,
      next_steps: draftNext(draft.id, draft.revision),
    };
  },
});

export const skillDraftGet = defineTool({
  name: 'skill_draft_get',
  group,
  description:
    'One of your drafts: its revision, files and whether it is valid now; with path, also a window of that file (offset, max_chars).',
  args: {
    draft_id: draftIdArg,
    path: pathArg.optional(),
    offset: offsetArg.optional(),
    max_chars: maxCharsArg.optional(),
  },
  mutates: false,
  audience,
  handler: async (ctx: Ctx, input) => {
    const draft = await draftOf(ctx.ex, actorOf(ctx.caller), input.draftId);
    const file =
      input.path !== undefined
        ? await draftWindow(ctx.ex, draft, {
            path: input.path,
            offset: input.offset,
            maxChars: input.maxChars,
          })
        : undefined;
    return {
      ...(await presentDraft(ctx.ex, draft)),
      ...(file ? { file } : {}),
      next_steps: draftNext(draft.id, draft.revision),
    };
  },
});

export const skillDraftUpdate = defineTool({
  name: 'skill_draft_update',
  group,
  description:
    'Change a draft’s description (in SKILL.md’s frontmatter), tags, or instructions (SKILL.md’s body below the frontmatter), against its current revision.',
  args: {
    draft_id: draftIdArg,
    revision: revisionArg,
    description: descriptionArg.optional(),
    tags: tagsArg.optional(),
    instructions: z
      .string()
      .max(P.fileBytes / 2)
      .optional()
      .describe('The Markdown body of SKILL.md, replacing the current one (the frontmatter stays).'),
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    const { revision } = await updateDraft(ctx.ex, actorOf(ctx.caller), input, ctx.clock.now());
    return { draft_id: input.draftId, revision, next_steps: draftNext(input.draftId, revision) };
  },
});

export const skillDraftFilePut = defineTool({
  name: 'skill_draft_file_put',
  group,
  description:
    'Add or replace one file of a draft: content (UTF-8 text) or content_base64 (bytes), at a path inside the package (SKILL.md, or under scripts/, references/, assets/).',
  args: {
    draft_id: draftIdArg,
    path: pathArg,
    content: z.string().max(P.fileBytes).optional().describe('The file as text.'),
    content_base64: z
      .string()
      .max(Math.ceil(P.fileBytes / 3) * 4)
      .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'standard base64')
      .optional()
      .describe('The file as base64 bytes (instead of content).'),
    revision: revisionArg,
  },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    if ((input.content === undefined) === (input.contentBase64 === undefined)) {
      throw new DomainError(
        'VALIDATION_FAILED',
        'Send exactly one of content (text) or content_base64 (bytes).',
        {
          detail: [
            { loc: ['arguments', 'content'], msg: 'exactly one of content, content_base64', type: 'one_of' },
          ],
        },
      );
    }
    const bytes =
      input.content !== undefined
        ? Buffer.from(input.content, 'utf8')
        : Buffer.from(input.contentBase64 ?? '', 'base64');
    const put = await putFile(
      ctx.ex,
      actorOf(ctx.caller),
      { draftId: input.draftId, path: input.path, bytes, revision: input.revision },
      ctx.clock.now(),
    );
    return {
      draft_id: input.draftId,
      path: input.path,
      ...put,
      next_steps: draftNext(input.draftId, put.revision),
    };
  },
});

export const skillDraftFileRemove = defineTool({
  name: 'skill_draft_file_remove',
  group,
  description: 'Remove one file from a draft, against its current revision.',
  args: { draft_id: draftIdArg, path: pathArg, revision: revisionArg },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    const { revision } = await removeFile(ctx.ex, actorOf(ctx.caller), input, ctx.clock.now());
    return {
      draft_id: input.draftId,
      path: input.path,
      revision,
      next_steps: draftNext(input.draftId, revision),
    };
  },
});

export const skillDraftValidate = defineTool({
  name: 'skill_draft_validate',
  group,
  description:
    'Check a draft against the Agent Skills format: every violation with its path and rule (frontmatter fields, names, paths, sizes). Publishing needs none.',
  args: { draft_id: draftIdArg },
  mutates: false,
  audience,
  handler: async (ctx: Ctx, input) => {
    const draft = await draftOf(ctx.ex, actorOf(ctx.caller), input.draftId);
    const problems = await validateDraft(ctx.ex, draft);
    return {
      draft_id: draft.id,
      revision: draft.revision,
      valid: problems.length === 0,
      problems,
      next_steps:
        problems.length === 0
          ? [
              {
                tool: 'skill_version_publish',
                action: 'Publish this revision.',
                arguments: { draft_id: draft.id, revision: draft.revision },
              },
            ]
          : [
              {
                tool: 'skill_draft_file_put',
                action: 'Fix the files named in problems.',
                arguments: { draft_id: draft.id, revision: draft.revision },
              },
            ],
    };
  },
});

export const skillVersionPublish = defineTool({
  name: 'skill_version_publish',
  group,
  description:
    'Publish the draft at its current revision as an immutable private version (only a valid package). Nothing is installed anywhere or published on the internet; share it by grant, campaign library or task attachment.',
  args: { draft_id: draftIdArg, revision: revisionArg },
  mutates: true,
  audience,
  handler: async (ctx: Ctx, input) => {
    const v = await publishVersion(ctx.ex, actorOf(ctx.caller), input, ctx.clock.now());
    return {
      version_id: v.id,
      skill_id: v.skillId,
      number: v.number,
      package_sha256: v.packageSha256,
      status: v.status,
      next_steps: [
        {
          tool: 'skill_get',
          action: 'See the version as others will.',
          arguments: { version_id: v.id, context: '{"scope":"OWN"}' },
        },
        // Only where it can succeed: the library tools are for identities in a campaign.
        ...(ctx.caller.standing === 'MEMBER' || ctx.caller.standing === 'COORDINATOR'
          ? [
              {
                tool: 'campaign_skill_propose',
                action: 'Offer it to the library of a campaign you are in (name its campaign_id).',
                arguments: { version_id: v.id },
              },
            ]
          : []),
      ],
    };
  },
});

export const draftTools = [
  skillDraftCreate,
  skillDraftGet,
  skillDraftUpdate,
  skillDraftFilePut,
  skillDraftFileRemove,
  skillDraftValidate,
  skillVersionPublish,
];
