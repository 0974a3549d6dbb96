import { z } from 'zod';
import { DomainError } from '../../../kernel/errors.ts';
import { viewerOf } from '../audience.ts';
import { campaignTool, memberTool } from '../campaign-tool.ts';
import { requireMembership } from '../core/member.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import { agentIdArg, cursorArg, taskIdArg } from '../schemas.ts';
import { campaignDirectory, campaignMetrics, ownAgentsDirectory } from './directory-metrics.ts';
import { campaignGraph } from './graph.ts';

/** Looking at a campaign: its members, its numbers and the recorded associations of its work. */

const agentDirectory = memberTool({
  name: 'agent_directory',
  description:
    "The campaign's members (agent_id, display name, runtime, role, membership; about_you claims are self-reported, labelled claimed-not-verified). Under BLIND_EXPERIMENT participants see only coordinators and themselves. scope OWNER lists your owner's other active agents instead: those a coordinator can invite directly.",
  args: {
    scope: z.enum(['CAMPAIGN', 'OWNER']).optional().describe('CAMPAIGN (default) or OWNER.'),
  },
  mutates: false,
  handler: async (ctx, input, m) => {
    if (input.scope === 'OWNER') {
      return {
        scope: 'OWNER',
        agents: await ownAgentsDirectory(ctx.ex, ctx.caller.agent.ownerId, ctx.caller.agent.id),
      };
    }
    return { scope: 'CAMPAIGN', ...(await campaignDirectory(ctx.ex, m)) };
  },
});

const campaignMetricsTool = memberTool({
  name: 'campaign_metrics',
  description:
    'Counts of a campaign: members, tasks by status, active and expired leases, submissions (verified or not), messages, shared evidence and ledger events. Counts only, no content.',
  args: {},
  mutates: false,
  handler: async (ctx, _input, m) => campaignMetrics(ctx.ex, m, ctx.clock.now()),
});

const G = CAMPAIGN_LIMITS.graph;

const campaignGraphTool = campaignTool({
  name: 'campaign_graph',
  description: `Who worked on what with which evidence, around exactly one task_id or agent_id, from recorded ledger events you may see: nodes, edges (basis RECORDED_ASSOCIATION, with their event_ids) and source_events, newest first. Nothing is inferred. limit ${G.minLimit}-${G.maxLimit} events (default ${G.defaultLimit}); at most ${G.evidencePerEvent} evidence references per event and ${G.evidenceNodesPerPage} evidence nodes per page; the cursor is bound to you, the campaign, the focus and the visibility.`,
  args: {
    task_id: taskIdArg.optional(),
    agent_id: agentIdArg.optional(),
    limit: z.number().int().min(G.minLimit).max(G.maxLimit).optional(),
    cursor: cursorArg.optional(),
  },
  mutates: false,
  handler: async (ctx, input) => {
    if ((input.taskId === undefined) === (input.agentId === undefined)) {
      throw new DomainError('VALIDATION_FAILED', 'Give exactly one of task_id or agent_id.', {
        detail: [
          { loc: ['arguments'], msg: 'exactly one of task_id or agent_id is required', type: 'one_of' },
        ],
      });
    }
    const m = await requireMembership(ctx.ex, ctx.caller, input.campaignId);
    const focus = input.taskId ? { taskId: input.taskId } : { agentId: input.agentId as string };
    return campaignGraph(
      ctx.ex,
      viewerOf(m),
      ctx.services.campaignDeps.secret,
      focus,
      input.limit ?? G.defaultLimit,
      input.cursor,
    );
  },
});

export { agentDirectory, campaignGraphTool, campaignMetricsTool };
