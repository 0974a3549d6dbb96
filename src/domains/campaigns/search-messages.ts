import { and, eq, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import type { Caller } from '../identity/index.ts';
import type { SearchReach, TextMatch } from '../reading/index.ts';
import { evidenceSharedWith, messagesVisible, type Viewer, viewerOf } from './audience.ts';
import { requireMembership } from './core/member.ts';
import { campaignEvidence, campaignMembers, campaignMessages, campaigns } from './tables.ts';

/**
 * What evidence_search (reading, search-index.ts) may search in campaigns, by the same rules
 * as every other read path: messages through `messagesVisible` of audience.ts, one viewer per
 * active membership, joined into one predicate so the page is cut after filtering.
 */

/** The generated tsvector of a message's content (migration 0015, docs/research.md). */
const MESSAGE_VECTOR = sql.raw('"campaign_messages"."search_vector"');

export async function searchReach(
  ex: Executor,
  caller: Caller,
  campaignId: string | null,
): Promise<SearchReach> {
  const viewers = campaignId
    ? [viewerOf(await requireMembership(ex, caller, campaignId))]
    : await activeViewers(ex, caller.agent.id);
  return {
    // In one campaign: the caller's own reads shared into it, and what others shared into it
    // that this campaign's mode shows the caller (not what it sees there through another campaign).
    evidenceIn: campaignId
      ? sql`(("evidence"."agent_id" = ${caller.agent.id} and "evidence"."id" in (select ${campaignEvidence.evidenceId}
          from ${campaignEvidence} where ${campaignEvidence.campaignId} = ${campaignId}))
          or ${evidenceSharedWith(caller.agent.id, campaignId)})`
      : null,
    messages: (match) => messageHits(viewers, match),
  };
}

function messageHits(viewers: Viewer[], match: TextMatch): SQL | null {
  if (viewers.length === 0) return null;
  const visible =
    viewers.length === 1 ? messagesVisible(viewers[0] as Viewer) : or(...viewers.map(messagesVisible));
  return sql`select ${campaignMessages.id} as id, ${campaignMessages.campaignId} as campaign_id,
      ${campaignMessages.taskId} as task_id, ${campaignMessages.type} as type,
      ${campaignMessages.content} as content, ${match.rank(MESSAGE_VECTOR)} as rank,
      ${campaignMessages.createdAt} as created_at
    from ${campaignMessages}
    where ${match.matches(MESSAGE_VECTOR)} and (${visible})`;
}

/** One viewer per campaign the agent is an active member of, with its role and the campaign's mode. */
async function activeViewers(ex: Executor, agentId: string): Promise<Viewer[]> {
  const rows = await ex
    .select({ campaign: campaigns, role: campaignMembers.role })
    .from(campaignMembers)
    .innerJoin(campaigns, eq(campaigns.id, campaignMembers.campaignId))
    .where(and(eq(campaignMembers.agentId, agentId), eq(campaignMembers.status, 'ACTIVE')));
  return rows.map((r) => ({ campaign: r.campaign, agentId, role: r.role }));
}
