import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignWith,
  claimedTask,
  type Member,
  newMember,
  ok,
  publishTask,
  refused,
} from '../support/campaigns.ts';
import { callTool, uniqueEmail } from '../support/factories.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/** Issue 5 item 9: campaign_graph from recorded events only, campaign_metrics, agent_directory. */

let site: FixtureSite;
let server: TestServer;
beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ env: site.env });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

type Graph = {
  nodes: Array<{ id: string; type: string; label: string | null }>;
  edges: Array<{ from: string; to: string; relation: string; basis: string; event_ids: string[] }>;
  source_events: Array<{ event_id: string; seq: number; kind: string }>;
  next_cursor: string | null;
};

/** A worker reads a page under its lease and hands in a verified result. */
async function doTask(coordinator: Member, worker: Member, campaignId: string) {
  const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
  const read = await ok(
    worker,
    'fetch_text',
    { url: `${site.origin}/article`, declared_purpose: 'Campaign task.' },
    false,
  );
  await ok(worker, 'task_complete', {
    task_id: taskId,
    lease_id: leaseId,
    evidence_ids: [read.evidence_id],
    claimed_outcome: 'COMPLETE',
    summary: `"${ARTICLE_QUOTE}"`,
  });
  return { taskId, evidenceId: read.evidence_id as string };
}

describe('campaign_graph', () => {
  it('draws edges only from recorded events, each naming its events, newest first', async () => {
    const coordinator = await newMember(server);
    const p1 = await newMember(server);
    const p2 = await newMember(server);
    const campaignId = await campaignWith(coordinator, [p1, p2]);
    const t1 = await doTask(coordinator, p1, campaignId);
    const t2 = await publishTask(coordinator, campaignId, { title: 'Second task' });
    await ok(p2, 'task_claim', { task_id: t2 });

    const g = (await ok(coordinator, 'campaign_graph', { task_id: t1.taskId }, false)) as unknown as Graph;
    expect(g.nodes).toEqual(
      expect.arrayContaining([
        { id: t1.taskId, type: 'TASK', label: 'Find a fact' },
        expect.objectContaining({ id: p1.agentId, type: 'AGENT' }),
        expect.objectContaining({ id: coordinator.agentId, type: 'AGENT' }),
        expect.objectContaining({ id: t1.evidenceId, type: 'EVIDENCE' }),
      ]),
    );
    const eventIds = new Set(g.source_events.map((e) => e.event_id));
    for (const edge of g.edges) {
      expect(edge.basis).toBe('RECORDED_ASSOCIATION');
      expect(edge.event_ids.length).toBeGreaterThan(0);
      for (const id of edge.event_ids) expect(eventIds.has(id)).toBe(true);
    }
    expect(g.edges).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ from: p1.agentId, to: t1.taskId, relation: 'CLAIMED' }),
        expect.objectContaining({ from: p1.agentId, to: t1.taskId, relation: 'SUBMITTED' }),
        expect.objectContaining({ from: coordinator.agentId, to: t1.taskId, relation: 'PUBLISHED' }),
        expect.objectContaining({ from: t1.evidenceId, to: t1.taskId, relation: 'EVIDENCE_FOR' }),
      ]),
    );
    const seqs = g.source_events.map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
    // Nothing inferred: the other task is not in this task's graph.
    expect(g.nodes.map((n) => n.id)).not.toContain(t2);

    // Around an agent: only what that agent did or was named in.
    const around = (await ok(
      coordinator,
      'campaign_graph',
      { agent_id: p2.agentId },
      false,
    )) as unknown as Graph;
    expect(around.nodes.map((n) => n.id)).toContain(t2);
    expect(around.nodes.map((n) => n.id)).not.toContain(t1.taskId);
  });

  it('pages with a cursor bound to caller and focus, and checks its arguments', async () => {
    const coordinator = await newMember(server);
    const p1 = await newMember(server);
    const campaignId = await campaignWith(coordinator, [p1]);
    const t1 = await doTask(coordinator, p1, campaignId);
    const first = (await ok(
      coordinator,
      'campaign_graph',
      { task_id: t1.taskId, limit: 1 },
      false,
    )) as unknown as Graph;
    expect(first.source_events).toHaveLength(1);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await ok(
      coordinator,
      'campaign_graph',
      { task_id: t1.taskId, limit: 1, cursor: first.next_cursor },
      false,
    )) as unknown as Graph;
    expect(second.source_events[0]?.seq).toBeLessThan(first.source_events[0]?.seq ?? 0);

    const foreign = await refused(
      p1,
      'campaign_graph',
      { task_id: t1.taskId, cursor: first.next_cursor },
      false,
    );
    expect(foreign.code).toBe('CURSOR_INVALID');
    const otherFocus = await refused(
      coordinator,
      'campaign_graph',
      { agent_id: p1.agentId, cursor: first.next_cursor },
      false,
    );
    expect(otherFocus.code).toBe('CURSOR_INVALID');
    expect((await refused(coordinator, 'campaign_graph', {}, false)).code).toBe('VALIDATION_FAILED');
    expect(
      (await refused(coordinator, 'campaign_graph', { task_id: t1.taskId, agent_id: p1.agentId }, false))
        .code,
    ).toBe('VALIDATION_FAILED');
    expect(
      (await refused(coordinator, 'campaign_graph', { task_id: t1.taskId, limit: 51 }, false)).code,
    ).toBe('VALIDATION_FAILED');
  });

  it("follows the visibility mode: a blind participant sees nothing of another's work", async () => {
    const coordinator = await newMember(server);
    const p1 = await newMember(server);
    const p2 = await newMember(server);
    const campaignId = await campaignWith(coordinator, [p1, p2], { visibility: 'BLIND_EXPERIMENT' });
    await doTask(coordinator, p1, campaignId);
    const seen = (await ok(p2, 'campaign_graph', { agent_id: p1.agentId }, false)) as unknown as Graph;
    expect(seen.source_events).toEqual([]);
    expect(seen.edges).toEqual([]);
    const full = (await ok(
      coordinator,
      'campaign_graph',
      { agent_id: p1.agentId },
      false,
    )) as unknown as Graph;
    expect(full.source_events.length).toBeGreaterThan(0);
    // A coordinator's event naming p1 (a reservation) does not tell p2 who works on the task.
    const reserved = await publishTask(coordinator, campaignId, { assignee_id: p1.agentId });
    const around = (await ok(p2, 'campaign_graph', { task_id: reserved }, false)) as unknown as Graph;
    expect(around.source_events.length).toBeGreaterThan(0);
    expect(around.nodes.map((n) => n.id)).not.toContain(p1.agentId);
    const named = (await ok(p2, 'campaign_graph', { agent_id: p1.agentId }, false)) as unknown as Graph;
    expect(named.source_events).toEqual([]);
  });
});

describe('campaign_graph limits', () => {
  it('draws at most 4 evidence references of one event', async () => {
    const coordinator = await newMember(server);
    const worker = await newMember(server);
    const campaignId = await campaignWith(coordinator, [worker]);
    const { taskId, leaseId } = await claimedTask(coordinator, worker, campaignId);
    const ids: string[] = [];
    for (const path of ['/article', '/article.gz', '/plain.txt', '/data.json', '/injection']) {
      const r = await ok(
        worker,
        'fetch_text',
        { url: `${site.origin}${path}`, declared_purpose: 'Task.' },
        false,
      );
      ids.push(r.evidence_id);
    }
    await ok(worker, 'task_complete', {
      task_id: taskId,
      lease_id: leaseId,
      evidence_ids: ids,
      claimed_outcome: 'COMPLETE',
      summary: `"${ARTICLE_QUOTE}"`,
    });
    // The newest event is the submission, naming all five sources: the graph shows four.
    const g = (await ok(
      coordinator,
      'campaign_graph',
      { task_id: taskId, limit: 1 },
      false,
    )) as unknown as Graph;
    expect(g.source_events.map((e) => e.kind)).toEqual(['TASK_SUBMITTED']);
    expect(g.nodes.filter((n) => n.type === 'EVIDENCE')).toHaveLength(4);
  });
});

describe('campaign_metrics and agent_directory', () => {
  it('counts the work and lists members, hiding other participants in a blind experiment', async () => {
    const email = uniqueEmail();
    await server.app.services.identity.addOwner(email, 'correct horse battery staple');
    const coordinator = await newMember(server, email);
    const sibling = await newMember(server, email);
    const p1 = await newMember(server);
    const p2 = await newMember(server);
    const campaignId = await campaignWith(coordinator, [p1, p2], { visibility: 'BLIND_EXPERIMENT' });
    await doTask(coordinator, p1, campaignId);
    await publishTask(coordinator, campaignId);

    const metrics = await ok(coordinator, 'campaign_metrics', {}, false);
    expect(metrics).toMatchObject({
      campaign_id: campaignId,
      members_active: 3,
      tasks: { total: 2, by_status: { VERIFIED: 1, OPEN: 1 } },
      submissions: { total: 1, verified: 1 },
    });
    // Participant 2 counts only what it may see (issue 40): the tasks, but neither participant 1
    // nor its result.
    const blindCounts = await ok(p2, 'campaign_metrics', {}, false);
    expect(blindCounts).toMatchObject({
      members_active: 2,
      tasks: { total: 2, by_status: { VERIFIED: 1, OPEN: 1 } },
      submissions: { total: 0, verified: 0 },
      shared_evidence: 0,
    });
    const status = await ok(p2, 'campaign_status', {}, false);
    expect(status.members).toEqual({ active: 2, coordinators: 1, waiting: null });
    expect((await ok(coordinator, 'campaign_status', {}, false)).members).toMatchObject({ active: 3 });

    const full = await ok(coordinator, 'agent_directory', {}, false);
    expect(full.members.map((m: { agent_id: string }) => m.agent_id).sort()).toEqual(
      [coordinator.agentId, p1.agentId, p2.agentId].sort(),
    );
    expect(full.members[0].about_you.label).toBe('claimed-not-verified');
    const blind = await ok(p2, 'agent_directory', {}, false);
    expect(blind.members.map((m: { agent_id: string }) => m.agent_id).sort()).toEqual(
      [coordinator.agentId, p2.agentId].sort(),
    );
    const own = await ok(coordinator, 'agent_directory', { scope: 'OWNER' }, false);
    expect(own.agents.map((a: { agent_id: string }) => a.agent_id)).toEqual([sibling.agentId]);
    expect((await callTool(p1.client, 'campaign_metrics', { campaign_id: 'cmp_NOPE' })).body.error.code).toBe(
      'NOT_A_MEMBER',
    );
  });
});
