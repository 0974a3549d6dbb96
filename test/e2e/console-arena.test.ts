import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { start } from '../support/arena.ts';
import { newMember, ok } from '../support/campaigns.ts';
import { errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 3, the owner's side in the console: on an identity's page with the Arena on, the
 * owner assigns a challenge (a TEAM one with teammates among their identities), follows the
 * identity's runs, and cancels a current one, with plain forms and the CSRF token.
 */

const PASSWORD = 'correct horse battery staple';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

function panel(page: Page): string {
  const m = /<section class="panel[^"]*" id="arena">([\s\S]*?)<\/section>/.exec(page.text);
  return m?.[1] ?? '';
}

/** The row of one run in the panel's table. */
function row(page: Page, runId: string): string {
  const m = new RegExp(`<tr id="run-${runId}">([\\s\\S]*?)</tr>`).exec(panel(page));
  return m?.[1] ?? '';
}

function cancelAction(rowHtml: string): string | null {
  return (
    /action="(\/console\/identities\/agt_\w+\/arena\/assignments\/asg_\w+\/cancel)"/.exec(rowHtml)?.[1] ??
    null
  );
}

async function signedIn() {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  return { email, visitor };
}

// biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON answers
type Run = Record<string, any>;

describe('Console: the Arena panel', () => {
  it('turns the Arena on, assigns with the form, lists the run, refuses with the message, cancels', async () => {
    const { email, visitor } = await signedIn();
    const agent = await newMember(server, email);
    const teammate = await newMember(server, email);
    const path = `/console/identities/${agent.agentId}`;
    const runsOf = async (agentId: string): Promise<Run[]> => {
      const res = await visitor.api('GET', `/v1/arena/runs?agent_id=${agentId}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      return res.body.runs;
    };

    // Off: only the switch.
    expect(panel(await visitor.get(path))).not.toContain('arena-assign');
    expect((await visitor.submit(path, `${path}/arena`, { enabled: 'on' })).status).toBe(303);

    const on = await visitor.get(path);
    const form = panel(on);
    expect(form).toContain(`action="${path}/arena/assign"`);
    for (const id of ['cite-quotation', 'reconcile-sources', 'fix-failing-program', 'team-handoff']) {
      expect(form).toContain(`<option value="${id}@1">`);
    }
    expect(form).toContain(`name="teammates" value="${teammate.agentId}"`);
    expect(form).not.toContain(`name="teammates" value="${agent.agentId}"`);
    expect(form).toContain('No runs yet.');

    // Without the page's token nothing happens.
    const forged = await visitor.post(`${path}/arena/assign`, { challenge: 'cite-quotation@1' });
    expect(forged.status).toBe(403);
    expect(await runsOf(agent.agentId)).toEqual([]);

    // A SOLO challenge: a ticked teammate is dropped; publish ticked, show identity not.
    const assigned = await visitor.submit(path, `${path}/arena/assign`, {
      challenge: 'cite-quotation@1',
      teammates: teammate.agentId,
      publish: 'on',
    });
    expect(assigned.status).toBe(303);
    expect(assigned.location).toBe(`${path}?done=arena_assigned`);
    const [run] = await runsOf(agent.agentId);
    expect(run).toMatchObject({
      challenge_id: 'cite-quotation',
      state: 'ASSIGNED',
      publish: true,
      show_agent: false,
      members: [{ agent_id: agent.agentId, role: 'A' }],
    });
    const listed = await visitor.get(assigned.location ?? path);
    expect(errorOf(listed.text)).toBeNull();
    expect(listed.text).toContain('Assigned. The identity was told');
    const assignedRow = row(listed, run?.run_id);
    expect(assignedRow).toContain('cite-quotation v1');
    expect(assignedRow).toContain('ASSIGNED');
    expect(assignedRow).toContain('start by');
    expect(cancelAction(assignedRow)).toBe(
      `${path}/arena/assignments/${run?.members[0].assignment_id}/cancel`,
    );

    // A refusal comes back on the page with its message.
    const again = await visitor.submit(path, `${path}/arena/assign`, { challenge: 'reconcile-sources@1' });
    expect(again.status).toBe(409);
    expect(errorOf(again.text)).toContain('already has a current Arena assignment');
    const unknown = await visitor.submit(path, `${path}/arena/assign`, { challenge: 'no-such-thing@1' });
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown.text)).toContain('No such challenge version');
    const garbled = await visitor.submit(path, `${path}/arena/assign`, { challenge: '<b>' });
    expect(garbled.status).toBe(422);
    expect(errorOf(garbled.text)).toBe('Choose a challenge from the list.');

    // Cancel, from the run's row.
    const action = cancelAction(assignedRow) ?? '';
    expect((await visitor.post(action, { csrf: 'forged' })).status).toBe(403);
    const cancelled = await visitor.submit(path, action, {});
    expect(cancelled.status).toBe(303);
    expect(cancelled.location).toBe(`${path}?done=arena_cancelled`);
    const after = await visitor.get(cancelled.location ?? path);
    expect(after.text).toContain('Cancelled. The run ended for every member');
    const cancelledRow = row(after, run?.run_id);
    expect(cancelledRow).toContain('CANCELLED');
    expect(cancelAction(cancelledRow)).toBeNull();
    expect((await runsOf(agent.agentId))[0]?.state).toBe('CANCELLED');
    // Cancelling an ended run is refused on the page.
    const twice = await visitor.submit(path, action, {});
    expect(twice.status).toBe(409);
    expect(errorOf(twice.text)).toContain('has already ended');
  });

  it('assigns a TEAM challenge with a teammate; shows the score once verified; another owner cannot cancel', async () => {
    const { email, visitor } = await signedIn();
    const agent = await newMember(server, email);
    const teammate = await newMember(server, email);
    const path = `/console/identities/${agent.agentId}`;
    const matePath = `/console/identities/${teammate.agentId}`;
    await visitor.submit(path, `${path}/arena`, { enabled: 'on' });

    const alone = await visitor.submit(path, `${path}/arena/assign`, { challenge: 'team-handoff@1' });
    expect(alone.status).toBe(422);
    expect(errorOf(alone.text)).toContain('TEAM challenge for 2 identities');
    const mateOff = await visitor.submit(path, `${path}/arena/assign`, {
      challenge: 'team-handoff@1',
      teammates: teammate.agentId,
    });
    expect(errorOf(mateOff.text)).toContain('does not take part in the Arena');

    await visitor.submit(matePath, `${matePath}/arena`, { enabled: 'on' });
    const team = await visitor.submit(path, `${path}/arena/assign`, {
      challenge: 'team-handoff@1',
      teammates: teammate.agentId,
      show_agent: 'on',
    });
    expect(team.status).toBe(303);
    const teamRuns = (await visitor.api('GET', `/v1/arena/runs?agent_id=${teammate.agentId}`)).body.runs;
    expect(teamRuns[0]).toMatchObject({
      challenge_id: 'team-handoff',
      mode: 'TEAM',
      publish: false,
      show_agent: true,
      members: [
        { agent_id: agent.agentId, role: 'A' },
        { agent_id: teammate.agentId, role: 'B' },
      ],
    });
    // The teammate's page lists it too, with its own role and assignment to cancel with.
    const matePage = await visitor.get(matePath);
    const mateRow = row(matePage, teamRuns[0].run_id);
    expect(mateRow).toContain('team-handoff v1 (TEAM, role B)');
    expect(cancelAction(mateRow)).toBe(
      `${matePath}/arena/assignments/${teamRuns[0].members[1].assignment_id}/cancel`,
    );

    // Another owner, signed in, cannot cancel it through their own identity's page.
    const other = await signedIn();
    const theirs = await newMember(server, other.email);
    const theirPath = `/console/identities/${theirs.agentId}`;
    const stolen = await other.visitor.submit(
      theirPath,
      `${theirPath}/arena/assignments/${teamRuns[0].members[1].assignment_id}/cancel`,
      {},
    );
    expect(stolen.status).toBe(404);
    expect((await visitor.api('GET', `/v1/arena/runs?agent_id=${teammate.agentId}`)).body.runs[0].state).toBe(
      'ASSIGNED',
    );

    // Cancelled from the teammate's page: ended for both.
    const cancelled = await visitor.submit(matePath, cancelAction(mateRow) ?? '', {});
    expect(cancelled.status).toBe(303);
    expect(row(await visitor.get(path), teamRuns[0].run_id)).toContain('CANCELLED');

    // A verified run shows its score out of the maximum, with no Cancel button.
    const solo = await visitor.submit(path, `${path}/arena/assign`, { challenge: 'cite-quotation@1' });
    expect(solo.status).toBe(303);
    await start(agent);
    const [running] = (await visitor.api('GET', `/v1/arena/runs?agent_id=${agent.agentId}&state=RUNNING`))
      .body.runs;
    const runningRow = row(await visitor.get(path), running.run_id);
    expect(runningRow).toContain('RUNNING');
    expect(runningRow).toContain(`datetime="${running.deadline}"`);
    expect(cancelAction(runningRow)).not.toBeNull();
    const verified = await ok(agent, 'result_verify', { run_id: running.run_id });
    const verifiedRow = row(await visitor.get(path), running.run_id);
    expect(verifiedRow).toContain('VERIFIED');
    expect(verifiedRow).toContain(`${verified.score}/${verified.max_score}`);
    expect(cancelAction(verifiedRow)).toBeNull();
  });
});
