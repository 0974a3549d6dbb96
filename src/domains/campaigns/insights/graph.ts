import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import { describeAgents } from '../../identity/index.ts';
import { eventsVisible, seesOtherWorkers, tasksVisible, type Viewer } from '../audience.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import { campaignEvents, tasks } from '../tables.ts';

/**
 * campaign_graph (SPEC Known tool arguments): who worked on what with which evidence, drawn only
 * from recorded ledger events the caller may see. Every edge names the events it comes from
 * (basis RECORDED_ASSOCIATION); nothing is inferred, so two tasks are never linked just because
 * the same agent touched both.
 */

export type Focus = { taskId: string } | { agentId: string };

interface Node {
  id: string;
  type: 'TASK' | 'AGENT' | 'EVIDENCE';
  label: string | null;
}

interface Edge {
  from: string;
  to: string;
  relation: string;
  basis: 'RECORDED_ASSOCIATION';
  event_ids: string[];
}

/** What an event's kind says an agent did to its task, as an edge relation. */
const RELATIONS: Record<string, string> = {
  TASK_PUBLISHED: 'PUBLISHED',
  TASK_CLAIMED: 'CLAIMED',
  TASK_RELEASED: 'RELEASED',
  TASK_EDITED: 'EDITED',
  TASK_ASSIGNED: 'ASSIGNED',
  TASK_DELEGATED: 'DELEGATED',
  TASK_SUBMITTED: 'SUBMITTED',
  RESULT_VERIFIED: 'VERIFIED',
  EVIDENCE_READ: 'READ_FOR',
  EVIDENCE_SUBMITTED: 'SUBMITTED_EVIDENCE_FOR',
  MESSAGE_POSTED: 'WROTE_ABOUT',
};

function binding(viewer: Viewer, focus: Focus): string {
  const on = 'taskId' in focus ? `task:${focus.taskId}` : `agent:${focus.agentId}`;
  return `campaign_graph:${viewer.agentId}:${viewer.campaign.id}:${on}:${viewer.campaign.visibility}:${viewer.role}`;
}

export async function campaignGraph(
  ex: Executor,
  viewer: Viewer,
  secret: string,
  focus: Focus,
  limit: number,
  cursor: string | undefined,
) {
  const bind = binding(viewer, focus);
  const beforeSeq = cursor ? openCursor<{ before: number }>(secret, bind, cursor).before : undefined;
  if (beforeSeq !== undefined && !Number.isSafeInteger(beforeSeq)) {
    throw new DomainError('CURSOR_INVALID', 'The cursor is not valid for this caller and query.', {});
  }
  // A blind participant may not learn what others' events say about another agent.
  const namedAsSubject =
    'agentId' in focus && (seesOtherWorkers(viewer) || focus.agentId === viewer.agentId)
      ? eq(campaignEvents.subjectAgentId, focus.agentId)
      : undefined;
  const about =
    'taskId' in focus
      ? eq(campaignEvents.taskId, focus.taskId)
      : or(eq(campaignEvents.actorAgentId, focus.agentId), namedAsSubject);
  const rows = await ex
    .select()
    .from(campaignEvents)
    .where(
      and(
        eventsVisible(viewer),
        about,
        sql`${campaignEvents.taskId} is not null`,
        beforeSeq === undefined ? undefined : lt(campaignEvents.seq, beforeSeq),
      ),
    )
    .orderBy(desc(campaignEvents.seq))
    .limit(limit + 1);
  const { rows: page, next } = cutPage(rows, limit, (last) => signCursor(secret, bind, { before: last.seq }));

  const nodes = new Map<string, Node>();
  const edges = new Map<string, Edge>();
  const seesOthers = seesOtherWorkers(viewer);
  let evidenceNodes = 0;
  let evidenceTruncated = false;
  const link = (from: string, to: string, relation: string, eventId: string) => {
    const k = `${from}|${to}|${relation}`;
    const edge = edges.get(k) ?? {
      from,
      to,
      relation,
      basis: 'RECORDED_ASSOCIATION' as const,
      event_ids: [],
    };
    edge.event_ids.push(eventId);
    edges.set(k, edge);
  };
  const node = (id: string, type: Node['type']) => {
    if (!nodes.has(id)) nodes.set(id, { id, type, label: null });
  };
  for (const e of page) {
    if (!e.taskId) continue;
    node(e.taskId, 'TASK');
    const relation = RELATIONS[e.kind] ?? e.kind;
    if (e.actorAgentId) {
      node(e.actorAgentId, 'AGENT');
      link(e.actorAgentId, e.taskId, relation, e.id);
    }
    // A blind participant sees coordinators' events, which may name another participant: hidden.
    const subjectShown = e.subjectAgentId && (seesOthers || e.subjectAgentId === viewer.agentId);
    if (e.subjectAgentId && subjectShown && e.subjectAgentId !== e.actorAgentId) {
      node(e.subjectAgentId, 'AGENT');
      link(e.taskId, e.subjectAgentId, `${relation}_TO`, e.id);
    }
    for (const evidenceId of e.evidenceIds.slice(0, CAMPAIGN_LIMITS.graph.evidencePerEvent)) {
      if (!nodes.has(evidenceId)) {
        if (evidenceNodes >= CAMPAIGN_LIMITS.graph.evidenceNodesPerPage) {
          evidenceTruncated = true;
          continue;
        }
        evidenceNodes++;
        node(evidenceId, 'EVIDENCE');
      }
      link(evidenceId, e.taskId, 'EVIDENCE_FOR', e.id);
    }
  }
  await label(ex, viewer, nodes);
  return {
    campaign_id: viewer.campaign.id,
    focus: 'taskId' in focus ? { task_id: focus.taskId } : { agent_id: focus.agentId },
    nodes: [...nodes.values()],
    edges: [...edges.values()],
    source_events: page.map((e) => ({
      event_id: e.id,
      seq: e.seq,
      kind: e.kind,
      at: e.createdAt.toISOString(),
    })),
    evidence_truncated: evidenceTruncated,
    next_cursor: next,
    note: 'Edges come only from recorded ledger events you may see (basis RECORDED_ASSOCIATION); no dependency is inferred.',
  };
}

/** Titles of tasks the viewer may see and display names of agents; everything else stays unlabelled. */
async function label(ex: Executor, viewer: Viewer, nodes: Map<string, Node>) {
  const taskIds = [...nodes.values()].filter((n) => n.type === 'TASK').map((n) => n.id);
  if (taskIds.length > 0) {
    const titles = await ex
      .select({ id: tasks.id, title: tasks.title })
      .from(tasks)
      .where(and(inArray(tasks.id, taskIds), tasksVisible(viewer)));
    for (const t of titles) {
      const n = nodes.get(t.id);
      if (n) n.label = t.title;
    }
  }
  const agentIds = [...nodes.values()].filter((n) => n.type === 'AGENT').map((n) => n.id);
  for (const a of await describeAgents(ex, agentIds)) {
    const n = nodes.get(a.id);
    if (n) n.label = a.displayName;
  }
}
