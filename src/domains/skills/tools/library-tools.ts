import { z } from 'zod';
import { defineTool, type OperationContext } from '../../../framework/index.ts';
import { contextString } from '../context.ts';
import {
  decideEntry,
  type EntryRow,
  presentEntry,
  proposeEntry,
  removeEntry,
  updateEntry,
} from '../library.ts';
import { SKILL_LIMITS } from '../limits.ts';
import { actorOf, SKILLS_COORDINATOR_AUDIENCE, SKILLS_MEMBER_AUDIENCE } from '../policy.ts';
import { campaignStanding } from '../standing.ts';
import { versionIdArg } from './version-tools.ts';

/**
 * The campaign library tools (SPEC Skills): members propose, coordinators decide; the members
 * read the accepted library with skill_list / skill_get under context CAMPAIGN.
 */

type Ctx = OperationContext<object>;
const group = 'Skills' as const;
const P = SKILL_LIMITS.package;

export const campaignArg = z
  .string()
  .max(SKILL_LIMITS.list.idChars)
  .regex(/^cmp_[0-9A-Za-z]{1,64}$/, 'a campaign id starts with cmp_')
  .describe('The campaign (cmp_…).');
const entryArg = z
  .string()
  .max(SKILL_LIMITS.list.idChars)
  .regex(/^csk_[0-9A-Za-z]{1,64}$/, 'a library entry id starts with csk_')
  .describe('The library entry (csk_…), from campaign_skill_propose or the SKILL_* ledger events.');
const noteArg = z.string().trim().min(1).max(P.noteChars);
const reasonArg = z.string().trim().min(1).max(P.noteChars);

function libraryRead(entry: EntryRow) {
  return {
    tool: 'skill_list',
    action: 'List the campaign’s accepted library.',
    arguments: { context: contextString({ scope: 'CAMPAIGN', campaign_id: entry.campaignId }) },
  };
}

export const campaignSkillPropose = defineTool({
  name: 'campaign_skill_propose',
  group,
  description:
    'Propose a skill version for a campaign’s library, as an active member. Only versions of your owner’s account can be proposed (a version granted to you cannot be passed on); not archived or blocked ones. A coordinator accepts or declines it with campaign_skill_decide; accepted versions are what context CAMPAIGN gives every member.',
  args: {
    campaign_id: campaignArg,
    version_id: versionIdArg,
    note: noteArg.optional().describe('Why the campaign should use it (up to 2,000 characters).'),
  },
  mutates: true,
  audience: SKILLS_MEMBER_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const now = ctx.clock.now();
    const standing = await campaignStanding(ctx.ex, actorOf(ctx.caller), input.campaignId, {
      forChange: true,
    });
    const entry = await proposeEntry(ctx.ex, standing, input, now);
    const coordinator = standing.role === 'COORDINATOR';
    return {
      ...presentEntry(entry),
      next: coordinator
        ? 'You coordinate this campaign: decide on it with campaign_skill_decide.'
        : 'Wait for a coordinator: it sees the SKILL_PROPOSED event in the ledger and decides with campaign_skill_decide; you will see SKILL_ACCEPTED or SKILL_DECLINED (events_watch).',
      next_steps: [
        ...(coordinator
          ? [
              {
                tool: 'campaign_skill_decide',
                action: 'Accept or decline the proposal.',
                arguments: { campaign_id: entry.campaignId, entry_id: entry.id, decision: 'ACCEPT' },
              },
            ]
          : [
              {
                tool: 'events_watch',
                action: 'Watch for the decision.',
                arguments: { campaign_id: entry.campaignId },
              },
            ]),
        {
          tool: 'campaign_skill_update',
          action: 'Change the note.',
          arguments: { campaign_id: entry.campaignId, entry_id: entry.id },
        },
        {
          tool: 'campaign_skill_remove',
          action: 'Withdraw the proposal.',
          arguments: { campaign_id: entry.campaignId, entry_id: entry.id },
        },
      ],
    };
  },
});

export const campaignSkillDecide = defineTool({
  name: 'campaign_skill_decide',
  group,
  description:
    'Accept or decline a PROPOSED library entry, as an active coordinator of the campaign. An accepted version is given to every member under context CAMPAIGN and can be attached to tasks.',
  args: {
    campaign_id: campaignArg,
    entry_id: entryArg,
    decision: z.enum(['ACCEPT', 'DECLINE']),
    reason: reasonArg.optional().describe('Why (up to 2,000 characters); shown in the ledger.'),
  },
  mutates: true,
  audience: SKILLS_COORDINATOR_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const standing = await campaignStanding(ctx.ex, actorOf(ctx.caller), input.campaignId, {
      forChange: true,
    });
    const entry = await decideEntry(ctx.ex, standing, input, ctx.clock.now());
    return {
      ...presentEntry(entry),
      next_steps:
        entry.state === 'ACCEPTED'
          ? [
              libraryRead(entry),
              {
                tool: 'task_skill_attach',
                action: 'Attach it to a task of the campaign.',
                arguments: { version_id: entry.versionId },
              },
            ]
          : [libraryRead(entry)],
    };
  },
});

export const campaignSkillUpdate = defineTool({
  name: 'campaign_skill_update',
  group,
  description:
    'Change the note of a live (PROPOSED or ACCEPTED) library entry: its proposer or a coordinator.',
  args: {
    campaign_id: campaignArg,
    entry_id: entryArg,
    note: noteArg.describe('The new note (up to 2,000 characters).'),
  },
  mutates: true,
  audience: SKILLS_MEMBER_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const standing = await campaignStanding(ctx.ex, actorOf(ctx.caller), input.campaignId, {
      forChange: true,
    });
    const entry = await updateEntry(ctx.ex, standing, input, ctx.clock.now());
    return { ...presentEntry(entry), next_steps: [libraryRead(entry)] };
  },
});

export const campaignSkillRemove = defineTool({
  name: 'campaign_skill_remove',
  group,
  description:
    'Remove an entry from the campaign’s library (state REMOVED): a coordinator any live entry, its proposer only its own PROPOSED one. Members no longer reach the version under context CAMPAIGN; tasks it is attached to keep it until detached.',
  args: {
    campaign_id: campaignArg,
    entry_id: entryArg,
    reason: reasonArg.optional().describe('Why (up to 2,000 characters); shown in the ledger.'),
  },
  mutates: true,
  audience: SKILLS_MEMBER_AUDIENCE,
  handler: async (ctx: Ctx, input) => {
    const standing = await campaignStanding(ctx.ex, actorOf(ctx.caller), input.campaignId, {
      forChange: true,
    });
    const entry = await removeEntry(ctx.ex, standing, input, ctx.clock.now());
    return {
      ...presentEntry(entry),
      next_steps: [
        libraryRead(entry),
        {
          tool: 'campaign_skill_propose',
          action: 'Propose another version.',
          arguments: { campaign_id: entry.campaignId },
        },
      ],
    };
  },
});

export const libraryTools = [
  campaignSkillPropose,
  campaignSkillDecide,
  campaignSkillUpdate,
  campaignSkillRemove,
];
