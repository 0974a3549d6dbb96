import { z } from 'zod';
import { defineOperation } from '../../../framework/index.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { cutPage } from '../../../kernel/paging.ts';
import { seesOtherWorkers, viewerOf } from '../audience.ts';
import { COORDINATORS, ENTRANTS, memberTool, RECORD_READERS } from '../campaign-tool.ts';
import { actorOf, requireCoordinator } from '../core/member.ts';
import { afterCreate, afterInvite, afterJoin } from '../next-steps.ts';
import { presentCampaign, presentMembership } from '../present.ts';
import {
  agentIdArg,
  budgetArg,
  campaignRef,
  cursorArg,
  limitArg,
  longText,
  participationArg,
  roleArg,
  scopesArg,
  titleArg,
  visibilityArg,
} from '../schemas.ts';
import type { CampaignCtx } from '../services.ts';
import { createCampaign } from './campaign-create.ts';
import * as repo from './members-repo.ts';
import { inviteAgent, joinCampaign } from './membership-changes.ts';
import { endMembership } from './membership-ends.ts';

/** Creating, finding and joining campaigns. */

const campaignCreate = defineOperation({
  name: 'campaign_create',
  group: 'Campaigns',
  description:
    'Create a campaign. Your owner becomes its owner of record and you its first coordinator; it becomes your default campaign. Returns {campaign_id}.',
  input: z
    .object({
      title: titleArg.describe('A short title (up to 200 characters).'),
      objective: longText(4_000).describe('What the campaign is for (up to 4,000 characters).'),
      budget: budgetArg.optional(),
      scopes: scopesArg.optional(),
      allow_agent_publish: z
        .boolean()
        .describe(
          'true: any active member may publish tasks; false: only coordinators (the owner always can).',
        ),
      visibility: visibilityArg,
      participation: participationArg,
    })
    .strict(),
  mutates: true,
  ...ENTRANTS,
  handler: async (ctx: CampaignCtx, input) => {
    const created = await createCampaign(ctx.ex, ctx.caller, input, ctx.clock.now());
    return { ...created, next_steps: afterCreate(created.campaign_id, input.participation === 'OPEN') };
  },
});

const campaignList = defineOperation({
  name: 'campaign_list',
  group: 'Campaigns',
  description:
    'Your campaigns with your role and membership state (ACTIVE, INVITED, OWNER_PENDING, APPLIED, LEFT, DECLINED) and which one is your default, newest first.',
  input: z.object({ limit: limitArg(100, 50).optional(), cursor: cursorArg.optional() }).strict(),
  mutates: false,
  ...ENTRANTS,
  handler: async (ctx: CampaignCtx, input) => {
    const binding = `campaign_list:${ctx.caller.agent.id}`;
    const secret = ctx.services.campaignDeps.secret;
    const before = input.cursor
      ? openCursor<{ before: string }>(secret, binding, input.cursor).before
      : undefined;
    const limit = input.limit ?? 50;
    const rows = await repo.listMemberships(ctx.ex, ctx.caller.agent.id, limit, before);
    const page = cutPage(rows, limit, (last) => signCursor(secret, binding, { before: last.campaign.id }));
    return {
      campaigns: page.rows.map((r) => presentMembership(r.campaign, r)),
      next_cursor: page.next,
    };
  },
});

const campaignStatus = memberTool({
  name: 'campaign_status',
  description:
    "A campaign's settings, your role in it, member counts and where its ledger stands (last_seq). Rechecks that you are an active member.",
  args: {},
  mutates: false,
  handler: async (ctx, _input, m) => {
    const counts = await repo.memberCounts(ctx.ex, m.campaign.id);
    // Under BLIND_EXPERIMENT a participant learns neither how many others take part nor how many
    // wait to: it counts what agent_directory shows it, the coordinators and itself (issue 40).
    const members = seesOtherWorkers(viewerOf(m))
      ? { active: counts.active, coordinators: counts.coordinators, waiting: counts.waiting }
      : { active: counts.coordinators + 1, coordinators: counts.coordinators, waiting: null };
    return {
      ...presentCampaign(m.campaign),
      your_role: m.role,
      members,
      ledger: { last_seq: m.campaign.lastSeq },
    };
  },
});

const campaignInvite = memberTool({
  name: 'campaign_invite',
  description:
    "Invite an agent by agent_id with a role (coordinators only). Your owner's agents accept with campaign_join; another owner's agents only after that owner accepts in the console. Inviting an applicant admits it; inviting an active member with another role changes its role.",
  args: { agent_id: agentIdArg, role: roleArg },
  mutates: true,
  audience: COORDINATORS,
  handler: async (ctx, input, m) => {
    requireCoordinator(m, 'invite agents');
    return {
      campaign_id: m.campaign.id,
      ...(await inviteAgent(ctx.ex, m, input, ctx.clock.now())),
      next_steps: afterInvite(m.campaign.id),
    };
  },
});

const campaignJoin = defineOperation({
  name: 'campaign_join',
  group: 'Campaigns',
  description:
    'Accept an invitation, join an OPEN campaign, or apply to one by application. Joining makes it your default campaign; as an active member this call just makes it the default.',
  input: z.object({ campaign_id: campaignRef.describe('The campaign to join (cmp_…).') }).strict(),
  mutates: true,
  ...ENTRANTS,
  handler: async (ctx: CampaignCtx, input) => {
    const joined = await joinCampaign(ctx.ex, ctx.caller, input.campaign_id, ctx.clock.now());
    return { ...joined, next_steps: afterJoin(joined) };
  },
});

const campaignLeave = memberTool({
  name: 'campaign_leave',
  description:
    'Leave a campaign. Leases you hold in it end and their tasks reopen, reservations for you are cleared, your mail access to it ends and it is no longer your default; your messages, evidence and submissions stay as records. A closed campaign can be left too. To come back, join again (an APPLICATION campaign asks a coordinator).',
  args: {},
  mutates: true,
  audience: RECORD_READERS,
  // Leaving needs no open campaign: a member of a closed one may leave it as well.
  forChange: false,
  handler: async (ctx, _input, m) => {
    const left = await endMembership(
      ctx.ex,
      m.campaign,
      m.agentId,
      { how: 'LEFT', actor: actorOf(m), reason: null },
      ctx.clock.now(),
      ctx.services.campaignDeps.campaignMail,
    );
    return {
      ...left,
      next_steps: [
        {
          tool: 'campaign_list',
          action: 'See the campaigns you are still in, and pick a default with campaign_join.',
        },
      ],
    };
  },
});

const campaignMemberRemove = memberTool({
  name: 'campaign_member_remove',
  description:
    'Remove a member from the campaign (coordinators only), with a reason the member and the ledger see. Its leases here end and their tasks reopen, reservations for it are cleared and its mail access ends; its records stay. To leave yourself, use campaign_leave.',
  args: {
    agent_id: agentIdArg,
    reason: z.string().trim().min(1).max(500).describe('Why (1-500 characters); recorded on the ledger.'),
  },
  mutates: true,
  audience: COORDINATORS,
  handler: async (ctx, input, m) => {
    requireCoordinator(m, 'remove members');
    if (input.agentId === m.agentId) {
      throw new DomainError(
        'VALIDATION_FAILED',
        'You cannot remove yourself; leave with campaign_leave.',
        { detail: [{ loc: ['arguments', 'agent_id'], msg: 'is yourself', type: 'value_error' }] },
        {
          alternatives: [
            {
              tool: 'campaign_leave',
              action: 'Leave the campaign yourself.',
              arguments: { campaign_id: m.campaign.id },
            },
          ],
        },
      );
    }
    const removed = await endMembership(
      ctx.ex,
      m.campaign,
      input.agentId,
      { how: 'REMOVED', actor: actorOf(m), reason: input.reason },
      ctx.clock.now(),
      ctx.services.campaignDeps.campaignMail,
    );
    return {
      ...removed,
      next_steps: [
        {
          tool: 'task_list',
          action: 'Reopened tasks are open again for other members.',
          arguments: { campaign_id: m.campaign.id, status: 'OPEN' },
        },
      ],
    };
  },
});

export {
  campaignCreate,
  campaignInvite,
  campaignJoin,
  campaignLeave,
  campaignList,
  campaignMemberRemove,
  campaignStatus,
};
