import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, conditions, key, type Member, newMember, ok } from '../support/campaigns.ts';
import { csrfOf, errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { callTool, uniqueEmail } from '../support/factories.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { balance, credit, expectBooksBalanced } from '../support/rewards.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 17 (console): the owner's rewards pages. The balance and its postings, release requests
 * decided from a form, the operator's credit (once per form), publishing with a reward from the
 * campaign page, the funding page agents are sent to, and cancelling a task with its refund.
 */

let site: FixtureSite;
let server: TestServer;
const OPERATOR = uniqueEmail();
const PASSWORD = 'correct horse battery staple';

beforeAll(async () => {
  site = await startFixtureSite();
  // A 10% fee, so every amount also shows the fee taken once; the operator is named, so which
  // owner signed up first (a shared PostgreSQL database) does not matter.
  server = await startTestServer({
    env: {
      ...site.env,
      CAIRN_TRUST_PROXY: 'true',
      CAIRN_PLATFORM_FEE_PCT: '10',
      CAIRN_OPERATOR_EMAILS: OPERATOR,
    },
  });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});
afterEach(async () => {
  if (server) await expectBooksBalanced(server);
});

/** A signed-in owner with one READ agent of theirs, connected over MCP. */
async function ownerWith(email = uniqueEmail()): Promise<{ email: string; visitor: Visitor; agent: Member }> {
  await server.app.services.identity.addOwner(email, PASSWORD);
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  return { email, visitor, agent: await newMember(server, email) };
}

const summary = `The article states "${ARTICLE_QUOTE}" which answers the question.`;

/** Claims, reads the fixture article under the lease, and completes: VERIFIED. */
async function work(m: Member, taskId: string) {
  const claimed = await ok(m, 'task_claim', { task_id: taskId });
  const read = await callTool(m.client, 'fetch_text', {
    url: `${site.origin}/article`,
    declared_purpose: 'Checking facts for the paid task.',
    task_id: taskId,
  });
  expect(read.isError, JSON.stringify(read.body)).toBe(false);
  const done = await callTool(m.client, 'task_complete', {
    task_id: taskId,
    lease_id: claimed.lease.lease_id,
    evidence_ids: [read.body.evidence_id],
    claimed_outcome: 'COMPLETE',
    summary,
    idempotency_key: key(),
  });
  expect(done.body.task_status, JSON.stringify(done.body)).toBe('VERIFIED');
}

/**
 * A signed-in campaign owner holding 1,000 points, a worker of another owner, and a 200-point
 * task the worker did and asked to be paid for.
 */
async function pendingRelease() {
  const owner = await ownerWith();
  const worker = await newMember(server);
  const campaignId = await campaignWith(owner.agent, [worker]);
  await credit(server, owner.agent, 'POINTS', 1_000);
  const published = await ok(owner.agent, 'task_publish', {
    campaign_id: campaignId,
    title: 'Paid fact',
    objective: 'Find one verifiable fact.',
    acceptance: 'A quotation that matches a recorded source.',
    conditions: conditions(),
    reward_points: 200,
  });
  const taskId = published.task_id as string;
  await work(worker, taskId);
  const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
  const path = `/console/rewards/approvals/${asked.approval_id as string}`;
  return { ...owner, worker, campaignId, taskId, path };
}

/** The campaign page's publish form, filled in (every condition term as the form sends it). */
const taskFields = (extra: Record<string, string> = {}) => ({
  title: 'Paid fact from the console',
  objective: 'Find one verifiable fact.',
  acceptance: 'A quotation that matches a recorded source.',
  ...Object.fromEntries(Object.entries(conditions()).map(([k, v]) => [k, String(v)])),
  ...extra,
});

const referenceOf = (html: string) => /name="reference" value="([^"]+)"/.exec(html)?.[1];

const expectRefused = (res: Page) => {
  expect(res.status).toBe(403);
  expect(res.text).toContain('did not carry a valid security token');
};

describe('release requests in the console', () => {
  it('lists a pending request, shows its quotes, and pays the worker’s owner once on Approve', async () => {
    const { visitor, worker, taskId, path } = await pendingRelease();

    const rewards = await visitor.get('/console/rewards');
    expect(rewards.status).toBe(200);
    // 1,000 less the 200 in escrow and the 10% fee.
    expect(rewards.text).toContain('780 points');
    expect(rewards.text).toContain(`href="${path}"`);
    expect(rewards.text).toContain('<a href="/console/rewards" aria-current="page">Rewards</a>');
    expect(rewards.text).toContain('Reward and fee to escrow');
    // Not an operator: no credit form.
    expect(rewards.text).not.toContain('Credit an owner');

    const shown = await visitor.get(path);
    expect(shown.status).toBe(200);
    expect(shown.text).toContain(`“${ARTICLE_QUOTE}”`);
    expect(shown.text).toContain('None: every quotation was found.');
    expect(shown.text).toContain(taskId);
    expect(shown.text).toMatch(/href="\/console\/research\/evidence\/evd_[0-9A-Za-z]+"/);
    expect(shown.text).toContain(`action="${path}/decision"`);

    // Without the page's CSRF token nothing is decided.
    expectRefused(await visitor.post(`${path}/decision`, { action: 'approve' }));
    expectRefused(await visitor.post(`${path}/decision`, { action: 'approve', csrf: 'forged' }));
    expect(await balance(server, worker, 'POINTS')).toBe(0);

    const approved = await visitor.submit(path, `${path}/decision`, { action: 'approve' });
    expect(approved.status, errorOf(approved.text) ?? '').toBe(303);
    expect(approved.location).toBe(`${path}?done=approved`);
    expect(await balance(server, worker, 'POINTS')).toBe(200);

    const after = await visitor.get(approved.location as string);
    expect(after.text).toContain('Approved. The reward moved from escrow');
    expect(after.text).toContain('<span class="badge" id="approval-status">APPROVED</span>');
    expect(after.text).not.toContain(`action="${path}/decision"`);

    // A second decision (an old tab) moves nothing and says why, with the next move.
    const again = await visitor.post(`${path}/decision`, { csrf: csrfOf(after.text), action: 'approve' });
    expect(again.status).toBe(409);
    expect(errorOf(again.text)).toContain('is APPROVED');
    expect(errorOf(again.text)).toContain('Nothing is left to decide here');
    expect(await balance(server, worker, 'POINTS')).toBe(200);
    expect((await visitor.get('/console/rewards')).text).not.toContain(`href="${path}"`);

    // Another owner, a malformed id and a signed-out browser find nothing.
    const stranger = await ownerWith();
    expect((await stranger.visitor.get(path)).status).toBe(404);
    const foreign = await stranger.visitor.submit('/console/rewards', `${path}/decision`, {
      action: 'approve',
    });
    expect(foreign.status).toBe(404);
    expect((await visitor.get('/console/rewards/approvals/nope')).status).toBe(404);
    const signedOut = await new Visitor(server.url).get(path);
    expect(signedOut.status).toBe(303);
    expect(signedOut.location).toBe(`/console/signin?next=${encodeURIComponent(path)}`);
  });

  it('returns a result for rework only with a reason; the reward stays in escrow', async () => {
    const { visitor, agent, worker, taskId, path } = await pendingRelease();
    const bare = await visitor.submit(path, `${path}/decision`, { action: 'return', reason: '  ' });
    expect(bare.status).toBe(422);
    expect(errorOf(bare.text)).toContain('Write the reason for rework');
    expect(bare.text).toContain(`action="${path}/decision"`);

    const returned = await visitor.submit(path, `${path}/decision`, {
      action: 'return',
      reason: 'Quote a second <source>, please.',
    });
    expect(returned.status, errorOf(returned.text) ?? '').toBe(303);
    expect(returned.location).toBe(`${path}?done=returned`);
    const after = await visitor.get(path);
    expect(after.text).toContain('id="approval-status">RETURNED</span>');
    expect(after.text).toContain('Quote a second &lt;source&gt;, please.');
    expect(after.text).not.toContain(`action="${path}/decision"`);
    const task = await ok(agent, 'task_get', { task_id: taskId }, false);
    expect(task).toMatchObject({ status: 'OPEN', reward: { status: 'ESCROWED' } });
    expect(await balance(server, worker, 'POINTS')).toBe(0);
  });
});

describe('the operator’s credit form', () => {
  it('is refused to other owners, and credits once however often one form is sent', async () => {
    const target = await ownerWith();
    const plain = await ownerWith();
    const send = (v: Visitor, csrf: string, reference: string, extra: Record<string, string> = {}) =>
      v.post('/console/rewards/credits', {
        csrf,
        reference,
        owner_email: target.email,
        currency: 'USD',
        amount: '12.50',
        note: 'Invoice 7',
        ...extra,
      });

    const page = await plain.visitor.get('/console/rewards');
    const refused = await send(plain.visitor, csrfOf(page.text), 'console_notanoperator');
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('Only an operator of this Cairn credits balances.');
    expect(await balance(server, target.agent, 'USD')).toBe(0);

    const operator = await ownerWith(OPERATOR);
    const form = await operator.visitor.get('/console/rewards');
    expect(form.text).toContain('Credit an owner');
    const reference = referenceOf(form.text) as string;
    expect(reference).toMatch(/^console_/);
    // A fresh reference with every rendering.
    expect(referenceOf((await operator.visitor.get('/console/rewards')).text)).not.toBe(reference);
    const token = csrfOf(form.text);
    expectRefused(await send(operator.visitor, 'forged', reference));
    expect(await balance(server, target.agent, 'USD')).toBe(0);

    const first = await send(operator.visitor, token, reference);
    expect(first.status, errorOf(first.text) ?? '').toBe(303);
    expect(first.location).toBe('/console/rewards?done=credited');
    const second = await send(operator.visitor, token, reference);
    expect(second.location).toBe('/console/rewards?done=credit_replayed');
    expect(await balance(server, target.agent, 'USD')).toBe(1_250);
    expect((await operator.visitor.get(second.location as string)).text).toContain(
      'nothing was credited a second time',
    );

    // The same reference for another amount is refused whole.
    const other = await send(operator.visitor, token, reference, { amount: '99' });
    expect(other.status).toBe(409);
    expect(errorOf(other.text)).toContain('Reload the page for a fresh form');
    const unknown = await send(operator.visitor, token, 'console_unknownowner', {
      owner_email: uniqueEmail(),
    });
    expect(unknown.status).toBe(422);
    expect(errorOf(unknown.text)).toContain('No owner with email');
    // The form comes back as typed, with a fresh reference.
    expect(unknown.text).toContain('value="Invoice 7"');
    const fraction = await send(operator.visitor, token, 'console_fractionpts', {
      currency: 'POINTS',
      amount: '1.5',
    });
    expect(fraction.status).toBe(422);
    expect(errorOf(fraction.text)).toContain('whole points');
    expect(await balance(server, target.agent, 'USD')).toBe(1_250);
    expect(await balance(server, target.agent, 'POINTS')).toBe(0);

    const seen = await target.visitor.get('/console/rewards');
    expect(seen.text).toContain('$12.50');
    expect(seen.text).toContain('Invoice 7');
  });
});

describe('rewards on the campaign page', () => {
  it('publishes with a reward: escrowed when covered, else to the task’s funding page', async () => {
    const { visitor, agent } = await ownerWith();
    const stranger = await ownerWith();
    const campaignId = await campaignWith(agent, []);
    const campaignPath = `/console/campaigns/${campaignId}`;
    await credit(server, agent, 'POINTS', 1_000);
    const publish = (fields: Record<string, string>) =>
      visitor.submit(campaignPath, `${campaignPath}/tasks`, taskFields(fields));

    const page = await visitor.get(campaignPath);
    expect(page.text).toContain('name="reward_amount"');
    expect(page.text).toContain('a platform fee of 10%');

    const unitless = await publish({ reward_amount: '200', reward_unit: '' });
    expect(unitless.status).toBe(422);
    expect(errorOf(unitless.text)).toContain('Choose the reward’s unit');
    expect(unitless.text).toContain('value="200"');
    const fraction = await publish({ reward_amount: '2.5', reward_unit: 'POINTS' });
    expect(errorOf(fraction.text)).toContain('whole number');
    expect(await balance(server, agent, 'POINTS')).toBe(1_000);

    const escrowed = await publish({ reward_amount: '200', reward_unit: 'POINTS' });
    expect(escrowed.status, errorOf(escrowed.text) ?? '').toBe(303);
    expect(escrowed.location).toBe(`${campaignPath}?done=published_escrowed`);
    expect(await balance(server, agent, 'POINTS')).toBe(780);
    const listed = await ok(agent, 'task_list', { campaign_id: campaignId }, false);
    expect(listed.tasks[0]).toMatchObject({ title: 'Paid fact from the console' });
    expect(listed.tasks[0].reward).toMatchObject({ minor_units: 200, status: 'ESCROWED' });

    // 900 points and the fee (990) are more than the 780 left: the task waits for funds.
    const short = await publish({ reward_amount: '900', reward_unit: 'POINTS' });
    expect(short.status, errorOf(short.text) ?? '').toBe(303);
    const fundPath = /^(\/console\/rewards\/fund\/task_[0-9A-Za-z]+)\?done=published$/.exec(
      short.location ?? '',
    )?.[1];
    expect(fundPath).toBeDefined();
    const waiting = await visitor.get(short.location as string);
    expect(waiting.status).toBe(200);
    expect(waiting.text).toContain('Its reward waits for funds');
    expect(waiting.text).toContain('AWAITING_FUNDING');
    expect(waiting.text).toContain('<dd id="shortfall">210 points</dd>');
    expect(waiting.text).toContain('credited by the operator');
    expect(waiting.text).not.toContain('Fund from balance');
    const refused = await visitor.post(fundPath as string, { csrf: csrfOf(waiting.text) });
    expect(refused.status).toBe(409);
    expect(errorOf(refused.text)).toContain('Ask the operator of this Cairn to credit your balance');
    expectRefused(await visitor.post(fundPath as string, {}));

    await credit(server, agent, 'POINTS', 210);
    const ready = await visitor.get(fundPath as string);
    expect(ready.text).toContain('Fund from balance');
    const funded = await visitor.submit(fundPath as string, fundPath as string, {});
    expect(funded.status, errorOf(funded.text) ?? '').toBe(303);
    expect(funded.location).toBe(`${fundPath}?done=funded`);
    expect(await balance(server, agent, 'POINTS')).toBe(0);
    const after = await visitor.get(funded.location as string);
    expect(after.text).toContain('ESCROWED');
    expect(after.text).not.toContain('Fund from balance');

    // Another owner's task, an unknown one and a malformed id are the console's not-found page.
    expect((await stranger.visitor.get(fundPath as string)).status).toBe(404);
    expect((await visitor.get('/console/rewards/fund/task_00000000000000000000000000')).status).toBe(404);
    expect((await visitor.get('/console/rewards/fund/nope')).status).toBe(404);
  });

  it('cancels a task from its row: the escrowed reward and its fee come back', async () => {
    const { visitor, agent } = await ownerWith();
    const campaignId = await campaignWith(agent, []);
    const campaignPath = `/console/campaigns/${campaignId}`;
    await credit(server, agent, 'POINTS', 500);
    const published = await visitor.submit(
      campaignPath,
      `${campaignPath}/tasks`,
      taskFields({ reward_amount: '300', reward_unit: 'POINTS' }),
    );
    expect(published.status, errorOf(published.text) ?? '').toBe(303);
    expect(await balance(server, agent, 'POINTS')).toBe(170);
    const taskId = (await ok(agent, 'task_list', { campaign_id: campaignId }, false)).tasks[0]
      .task_id as string;

    const page = await visitor.get(campaignPath);
    expect(page.text).toContain(`<input type="hidden" name="task_id" value="${taskId}">`);
    expect(page.text).toContain('an escrowed reward is refunded to your balance');

    expectRefused(await visitor.post(`${campaignPath}/tasks/cancel`, { task_id: taskId, reason: 'x' }));
    const bare = await visitor.submit(campaignPath, `${campaignPath}/tasks/cancel`, {
      task_id: taskId,
      reason: ' ',
    });
    expect(bare.status).toBe(422);
    expect(errorOf(bare.text)).toContain('Enter the reason for cancelling.');
    expect(await balance(server, agent, 'POINTS')).toBe(170);

    const cancelled = await visitor.submit(campaignPath, `${campaignPath}/tasks/cancel`, {
      task_id: taskId,
      reason: 'No longer needed.',
    });
    expect(cancelled.status, errorOf(cancelled.text) ?? '').toBe(303);
    expect(cancelled.location).toBe(`${campaignPath}?done=cancelled_refunded`);
    expect(await balance(server, agent, 'POINTS')).toBe(500);
    const after = await visitor.get(cancelled.location as string);
    expect(after.text).toContain('Its escrowed reward and its platform fee went back to your balance');
    expect(after.text).toContain('CANCELLED');
    expect(after.text).not.toContain(`name="task_id" value="${taskId}"`);

    // Once is all: a second cancel is refused on the page and moves nothing.
    const twice = await visitor.post(`${campaignPath}/tasks/cancel`, {
      csrf: csrfOf(after.text),
      task_id: taskId,
      reason: 'Again.',
    });
    expect(twice.status).toBe(409);
    expect(errorOf(twice.text)).toContain('already cancelled');
    expect(await balance(server, agent, 'POINTS')).toBe(500);
    const postings = (await visitor.get('/console/rewards')).text;
    expect(postings).toContain('Escrow and fee refunded');
  });
});
