import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { callFields, type MatchingMember, matchingMember, openCall } from '../support/matching.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 (console): the owner turns matching on per identity on its page; publishes, changes
 * and withdraws a campaign's call for applications on the campaign's page; and decides matching
 * requests under Matching in order: the campaign's owner accepts first, then the joining agent's
 * owner, and only then the agent is a member. Out of turn, the page says whose turn it is and
 * nothing changes; another owner's request is not found; a form without its CSRF token changes
 * nothing.
 */

const PASSWORD = 'correct horse battery staple';
const MATCHING_TOOLS = [
  'matching_list',
  'matching_profile',
  'matching_interest',
  'matching_requests',
  'matching_get',
  'matching_respond',
  'matching_watch',
];

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_TRUST_PROXY: 'true' } });
});
afterAll(async () => {
  await server?.close();
});

const word = () => `w${Math.random().toString(36).slice(2, 10)}`;

/** A signed-in owner and the email their agents are made under. */
async function signedIn(): Promise<{ visitor: Visitor; email: string }> {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  return { visitor, email };
}

/** One section of a page (`<section class="panel…" id="…">`), or '' when it is not there. */
function panel(page: Page, id: string): string {
  const m = new RegExp(`<section class="panel[^"]*" id="${id}">([\\s\\S]*?)</section>`).exec(page.text);
  return m?.[1] ?? '';
}

/** One request's row on the matching list, or '' when it is not listed. */
function row(page: Page, requestId: string): string {
  const m = new RegExp(`<tr id="request-${requestId}">([\\s\\S]*?)</tr>`).exec(page.text);
  return m?.[1] ?? '';
}

/** The error notice as a person reads it (the page escapes apostrophes). */
const shownError = (page: Page) => (errorOf(page.text) ?? '').replaceAll('&#39;', "'");

const toolNames = async (m: Member) => (await m.client.listTools()).tools.map((t) => t.name);

const decisionPath = (id: string) => `/console/matching/${id}/decision`;

describe('consent on the identity page', () => {
  it('turns matching on and off from the page; the agent gets the tools; public only while on', async () => {
    const { visitor, email } = await signedIn();
    const agent = await newMember(server, email);
    const path = `/console/identities/${agent.agentId}`;

    const before = await visitor.get(path);
    expect(before.status).toBe(200);
    expect(panel(before, 'matching')).toContain('<dd id="matching-state"><span class="badge off">OFF</span>');
    expect(panel(before, 'matching')).toContain(`action="${path}/matching"`);
    expect(await toolNames(agent)).not.toContain('matching_list');

    // Without the page's CSRF token nothing changes.
    const forged = await visitor.post(`${path}/matching`, { enabled: 'on' });
    expect(forged.status).toBe(403);
    expect(await toolNames(agent)).not.toContain('matching_list');

    const on = await visitor.submit(path, `${path}/matching`, { enabled: 'on' });
    expect([on.status, on.location]).toEqual([303, `${path}?done=matching_on`]);
    const after = await visitor.get(on.location ?? '');
    expect(after.text).toContain('Matching is on.');
    expect(panel(after, 'matching')).toContain('<dd id="matching-state"><span class="badge on">ON</span>');
    expect(panel(after, 'matching')).toContain('<span class="badge off">NOT PUBLIC</span>');
    expect(panel(after, 'matching')).toContain('name="enabled" value="on" checked');
    expect(await toolNames(agent)).toEqual(expect.arrayContaining(MATCHING_TOOLS));

    // Public: its profile appears on the public list, with no agent id.
    const topic = word();
    await ok(agent, 'matching_profile', { ...callFields(topic), alias: 'Curlew reader' });
    const publicOf = async () =>
      (await (await fetch(`${server.url}/v1/public/matching/intents?q=${topic}`)).json()).intents as Array<{
        alias: string;
      }>;
    expect(await publicOf()).toEqual([]);
    const shown = await visitor.submit(path, `${path}/matching`, { enabled: 'on', public: 'on' });
    expect(shown.location).toBe(`${path}?done=matching_public`);
    expect(panel(await visitor.get(path), 'matching')).toContain('<span class="badge on">PUBLIC</span>');
    const listed = await publicOf();
    expect(listed.map((i) => i.alias)).toEqual(['Curlew reader']);
    expect(JSON.stringify(listed)).not.toContain(agent.agentId);

    // Public without matching is not kept: off is off, the profile withdrawn, the tools gone.
    const off = await visitor.submit(path, `${path}/matching`, { public: 'on' });
    expect(off.location).toBe(`${path}?done=matching_off`);
    const offPage = await visitor.get(off.location ?? '');
    expect(offPage.text).toContain('Matching is off.');
    expect(panel(offPage, 'matching')).toContain('<span class="badge off">OFF</span>');
    expect(panel(offPage, 'matching')).toContain('<span class="badge off">NOT PUBLIC</span>');
    expect(panel(offPage, 'matching')).not.toContain('checked');
    expect(await toolNames(agent)).not.toContain('matching_list');
    expect(await publicOf()).toEqual([]);

    // Another owner's identity is not found, and stays as it was.
    const stranger = await signedIn();
    const theirs = await stranger.visitor.submit('/console', `${path}/matching`, { enabled: 'on' });
    expect(theirs.status).toBe(404);
    expect(await toolNames(agent)).not.toContain('matching_list');
  });
});

describe('the call for applications on the campaign page', () => {
  it('publishes, changes and withdraws the call; agents with matching on see it; refusals keep what was typed', async () => {
    const { visitor, email } = await signedIn();
    const coordinator = await newMember(server, email);
    const campaignId = await campaignWith(coordinator, [], { participation: 'APPLICATION' });
    const path = `/console/campaigns/${campaignId}`;
    const seeker = await matchingMember(server);
    const topic = word();
    const listed = async () =>
      (await ok(seeker, 'matching_list', { q: topic }, false)).intents as Array<Record<string, string>>;

    const page = await visitor.get(path);
    expect(panel(page, 'matching-call')).toContain('Call for applications (matching)');
    expect(panel(page, 'matching-call')).toContain('id="matching-call-none"');
    expect(panel(page, 'matching-call')).toContain('<button type="submit">Publish call</button>');

    const fields = {
      alias: 'Moorland <b>team</b>',
      topic,
      help_offered: 'Read bird atlases\r\nand quote them.',
      effort: 'a few hours',
      availability: 'this week',
      expires_in_hours: '24',
      public: 'on',
    };
    // A refusal is shown on the page, with the form filled in as it was typed.
    const tooLong = await visitor.submit(path, `${path}/matching-call`, {
      ...fields,
      expires_in_hours: '169',
    });
    expect(tooLong.status).toBe(422);
    expect(errorOf(tooLong.text)).toContain('a whole number from 1 to 168');
    expect(panel(tooLong, 'matching-call')).toContain(
      `id="call_topic" name="topic" type="text" required maxlength="200" value="${topic}"`,
    );
    expect(panel(tooLong, 'matching-call')).toContain('value="Moorland &lt;b&gt;team&lt;/b&gt;"');
    expect(panel(tooLong, 'matching-call')).toContain('value="169"');
    const noAlias = await visitor.submit(path, `${path}/matching-call`, { ...fields, alias: '  ' });
    expect(noAlias.status).toBe(422);
    expect(errorOf(noAlias.text)).toBe('Enter an alias.');
    expect(await listed()).toEqual([]);

    const made = await visitor.submit(path, `${path}/matching-call`, fields);
    expect([made.status, made.location]).toEqual([303, `${path}?done=call_saved#matching-call`]);
    const shown = await visitor.get(`${path}?done=call_saved`);
    expect(shown.text).toContain('Call saved.');
    const call = panel(shown, 'matching-call');
    const ref = /<code id="application-ref">(aref_[a-z2-7]+)<\/code>/.exec(call)?.[1];
    expect(ref).toBeDefined();
    expect(call).toContain('<dd>Moorland &lt;b&gt;team&lt;/b&gt;</dd>');
    expect(call).toContain('Read bird atlases<br>and quote them.');
    expect(call).toContain('<span class="badge on">PUBLIC</span>');
    expect(call).toContain('<button type="submit">Save call</button>');

    // Another agent with matching on finds it, labelled self-reported, under its alias only.
    const [intent] = await listed();
    expect(intent).toMatchObject({
      kind: 'APPLICATION',
      alias: 'Moorland <b>team</b>',
      topic,
      help_offered: 'Read bird atlases\nand quote them.',
      application_ref: ref,
      verification: 'SELF_REPORTED_UNVERIFIED',
    });
    expect(JSON.stringify(intent)).not.toContain(campaignId);
    const publicList = await (await fetch(`${server.url}/v1/public/matching/intents?q=${topic}`)).json();
    expect(publicList.intents.map((i: { application_ref: string }) => i.application_ref)).toEqual([ref]);

    // Changing it keeps its ref; unticking public takes it off the public list.
    const { public: _public, ...privately } = fields;
    const changed = await visitor.submit(path, `${path}/matching-call`, { ...privately, effort: 'one day' });
    expect(changed.status).toBe(303);
    expect(panel(await visitor.get(path), 'matching-call')).toContain(
      `<code id="application-ref">${ref}</code>`,
    );
    expect((await listed())[0]).toMatchObject({ effort: 'one day', application_ref: ref });
    const afterChange = await (await fetch(`${server.url}/v1/public/matching/intents?q=${topic}`)).json();
    expect(afterChange.intents).toEqual([]);

    const gone = await visitor.submit(path, `${path}/matching-call/withdraw`, {});
    expect(gone.location).toBe(`${path}?done=call_withdrawn#matching-call`);
    expect(await listed()).toEqual([]);
    const withdrawn = await visitor.get(`${path}?done=call_withdrawn`);
    expect(withdrawn.text).toContain('Call withdrawn.');
    expect(panel(withdrawn, 'matching-call')).toContain('id="matching-call-none"');

    // The owner closes the campaign on its page (the box must be ticked); then it has no call
    // section, and a post is refused on the page.
    const unconfirmed = await visitor.submit(path, `${path}/close`, { reason: 'done' });
    expect(unconfirmed.status).toBe(422);
    const shut = await visitor.submit(path, `${path}/close`, { reason: 'done', confirm: 'on' });
    expect(shut.location).toBe(`${path}?done=closed`);
    const closed = await visitor.get(`${path}?done=closed`);
    expect(closed.text).toContain('Campaign closed.');
    expect(panel(closed, 'close')).toContain('done');
    expect(closed.status).toBe(200);
    expect(panel(closed, 'matching-call')).toBe('');
    const late = await visitor.submit(path, `${path}/matching-call`, fields);
    expect(late.status).toBe(409);
    expect(errorOf(late.text)).toContain('closed');
    expect(await listed()).toEqual([]);
  });
});

describe('deciding requests under Matching', () => {
  /** A campaign owner (signed in) whose coordinator has matching on and whose campaign calls. */
  async function campaignOwner(topic: string) {
    const { visitor, email } = await signedIn();
    const coordinator = await matchingMember(server, { ownerEmail: email });
    const campaignId = await campaignWith(coordinator, [], {
      participation: 'APPLICATION',
      title: 'Moorland <i>survey</i>',
    });
    const call = await openCall(server, coordinator, campaignId, topic);
    return { visitor, coordinator, campaignId, call };
  }

  /** An applicant's owner (signed in) and their agent with matching on, describing itself. */
  async function applicantOwner() {
    const { visitor, email } = await signedIn();
    const applicant = await matchingMember(server, { ownerEmail: email });
    await ok(applicant, 'identity_update_about', { purpose: 'Reads <b>atlases</b>', model: 'curlew-1' });
    return { visitor, applicant };
  }

  async function apply(applicant: MatchingMember, call: { intent_id: string; application_ref: string }) {
    const made = await ok(applicant, 'matching_interest', {
      intent_id: call.intent_id,
      reason: 'I read <em>atlases</em>.',
      task_ref: call.application_ref,
    });
    return made.matching_request_id as string;
  }

  it('the campaign owner accepts first, then the applicant’s owner, and only then the agent is a member', async () => {
    const topic = word();
    const A = await campaignOwner(topic);
    const B = await applicantOwner();
    const id = await apply(B.applicant, A.call);

    // Before the responder answers, no owner has a button.
    for (const owner of [A.visitor, B.visitor]) {
      const list = await owner.get('/console/matching');
      expect(list.status).toBe(200);
      expect(list.text).toContain('<a href="/console/matching" aria-current="page">Matching</a>');
      expect(row(list, id)).toContain('<span class="badge">PROPOSED</span>');
      expect(row(list, id)).toContain('Owners decide after the responder accepts.');
      expect(row(list, id)).not.toContain(decisionPath(id));
    }

    await ok(A.coordinator, 'matching_respond', {
      matching_request_id: id,
      decision: 'ACCEPT',
      response_reason: 'Welcome, pending our owners.',
    });

    // The applicant's owner: not their turn yet, so no button, and "your turn" does not list it.
    const early = await B.visitor.get('/console/matching');
    expect(row(early, id)).toContain('Waiting for the campaign’s owner, who decides first.');
    expect(row(early, id)).not.toContain(decisionPath(id));
    expect(row(await B.visitor.get('/console/matching?state=YOUR_TURN'), id)).toBe('');
    // Pressing Accept anyway (an old page): refused on the page, naming whose turn it is.
    const outOfTurn = await B.visitor.submit(`/console/matching/${id}`, decisionPath(id), {
      decision: 'accept',
      back: 'detail',
    });
    expect(outOfTurn.status).toBe(409);
    expect(shownError(outOfTurn)).toContain("The campaign's owner decides first; you approve afterwards.");
    expect(shownError(outOfTurn)).toContain('Nothing was decided.');
    expect(panel(outOfTurn, 'decision')).toContain('Waiting for the campaign’s owner');

    // The campaign's owner sees it under "your turn", with what they decide on.
    const turn = await A.visitor.get('/console/matching?state=YOUR_TURN');
    expect(turn.text).toContain('href="/console/matching?state=YOUR_TURN" aria-current="true"');
    const mine = row(turn, id);
    expect(mine).toContain('Moorland &lt;i&gt;survey&lt;/i&gt;');
    expect(mine).toContain(`<a href="/console/campaigns/${A.campaignId}">`);
    expect(mine).toContain('Test agent');
    expect(mine).toContain(`<code>${B.applicant.agentId}</code>`);
    expect(mine).toContain('Purpose: Reads &lt;b&gt;atlases&lt;/b&gt;');
    expect(mine).toContain('Model: curlew-1');
    expect(mine).toContain('Self-reported by the agent; not verified.');
    expect(mine).toContain('APPLICATION');
    expect(mine).toContain('Moorland survey team');
    expect(mine).toContain(topic);
    expect(mine).toContain('I read &lt;em&gt;atlases&lt;/em&gt;.');
    expect(mine).toContain('Response: Welcome, pending our owners.');
    expect(mine).toContain('<span class="badge">TENTATIVE</span>');
    expect(mine).toContain('Waiting for <strong>you</strong>: the campaign’s owner');
    expect(mine).toContain('Expires <time');
    expect(mine).toContain(`action="${decisionPath(id)}"`);
    expect(mine).toContain('<button type="submit">Accept</button>');
    expect(mine).toContain('<button class="secondary" type="submit">Decline</button>');
    // A guest identity is the joining agent's owner's choice, not the campaign owner's.
    expect(mine).not.toContain('Accept as a guest');
    expect(turn.text).not.toMatch(/<script/i);

    // Without the CSRF token nothing is decided.
    expect((await A.visitor.post(decisionPath(id), { decision: 'accept', back: 'YOUR_TURN' })).status).toBe(
      403,
    );

    const accepted = await A.visitor.submit('/console/matching?state=YOUR_TURN', decisionPath(id), {
      decision: 'accept',
      back: 'YOUR_TURN',
    });
    expect([accepted.status, accepted.location]).toEqual([
      303,
      `/console/matching?state=YOUR_TURN&done=accepted&request=${id}`,
    ]);
    const back = await A.visitor.get(accepted.location ?? '');
    expect(back.text).toContain('Accepted. The joining agent’s owner decides next');
    expect(back.text).toContain(`<a href="/console/matching/${id}">See the request</a>`);
    expect(row(back, id)).toBe('');
    // Pressing it again: the refusal, shown on the list it was pressed on.
    const twice = await A.visitor.submit('/console/matching', decisionPath(id), {
      decision: 'accept',
      back: 'all',
    });
    expect(twice.status).toBe(409);
    expect(shownError(twice)).toContain("The joining agent's owner decides now.");
    expect(row(twice, id)).toContain('Waiting for the joining agent’s owner');
    // Not a member yet.
    expect((await refused(B.applicant, 'campaign_status', { campaign_id: A.campaignId }, false)).code).toBe(
      'TOOL_NOT_AVAILABLE',
    );

    // Now the applicant's owner has the buttons, on the list and the request's page.
    const theirTurn = await B.visitor.get('/console/matching?state=YOUR_TURN');
    expect(row(theirTurn, id)).toContain('Waiting for <strong>you</strong>: the joining agent’s owner');
    expect(row(theirTurn, id)).toContain('Accepting makes your agent a participant of the campaign now.');
    expect(row(theirTurn, id)).toContain(
      '<button class="secondary" type="submit">Accept as a guest</button>',
    );
    const detail = await B.visitor.get(`/console/matching/${id}`);
    expect(detail.status).toBe(200);
    expect(detail.text).toContain('About this agent <small>(claimed, not verified)</small>');
    expect(detail.text).toContain('Reads &lt;b&gt;atlases&lt;/b&gt;');
    expect(panel(detail, 'request')).toContain(`<code>${A.campaignId}</code>`);
    expect(panel(detail, 'request')).toContain(`<a href="/console/identities/${B.applicant.agentId}">`);
    expect(panel(detail, 'decision')).toContain('<button type="submit">Accept</button>');
    const joined = await B.visitor.submit(`/console/matching/${id}`, decisionPath(id), {
      decision: 'accept',
      back: 'detail',
    });
    expect([joined.status, joined.location]).toEqual([303, `/console/matching/${id}?done=joined`]);
    const done = await B.visitor.get(joined.location ?? '');
    expect(done.text).toContain('Accepted. The agent joined the campaign as a participant.');
    expect(panel(done, 'decision')).toContain('<span class="badge on">JOINED</span>');
    expect(panel(done, 'decision')).not.toContain('<button');

    const status = await ok(B.applicant, 'campaign_status', { campaign_id: A.campaignId }, false);
    expect(status.campaign_id ?? status.campaign?.campaign_id).toBe(A.campaignId);
    expect(row(await A.visitor.get('/console/matching'), id)).toContain(
      '<span class="badge on">JOINED</span>',
    );

    // An ended request: the refusal says so; another owner's request is not found.
    const ended = await B.visitor.submit(`/console/matching/${id}`, decisionPath(id), {
      decision: 'decline',
    });
    expect(ended.status).toBe(409);
    expect(shownError(ended)).toContain('The request already ended with the join.');
    const stranger = await signedIn();
    expect((await stranger.visitor.get(`/console/matching/${id}`)).status).toBe(404);
    expect(row(await stranger.visitor.get('/console/matching'), id)).toBe('');
    const theirs = await stranger.visitor.submit('/console/matching', decisionPath(id), {
      decision: 'accept',
    });
    expect(theirs.status).toBe(404);
  });

  it('the applicant’s owner may accept as a guest: the agent is asked to pair one, and the owner may still decline', async () => {
    const topic = word();
    const A = await campaignOwner(topic);
    const B = await applicantOwner();
    const id = await apply(B.applicant, A.call);
    await ok(A.coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
    await A.visitor.submit(`/console/matching/${id}`, decisionPath(id), { decision: 'accept' });

    const guest = await B.visitor.submit(`/console/matching/${id}`, decisionPath(id), {
      decision: 'accept',
      join_as: 'GUEST',
      back: 'detail',
    });
    expect([guest.status, guest.location]).toEqual([303, `/console/matching/${id}?done=guest`]);
    const page = await B.visitor.get(guest.location ?? '');
    expect(page.text).toContain('Accepted as a guest.');
    const state = panel(page, 'decision');
    expect(state).toContain('<span class="badge">TENTATIVE</span>');
    expect(state).toContain('pair a guest identity bound to this campaign alone');
    expect(state).toContain('href="/pair"');
    expect(state).not.toContain('>Accept</button>');
    expect(state).toContain('<button class="secondary" type="submit">Decline</button>');
    const seen = await ok(B.applicant, 'matching_get', { matching_request_id: id }, false);
    expect(seen).toMatchObject({ status: 'pairing_required', waiting_for: 'GUEST_PAIRING' });
    expect((await refused(B.applicant, 'campaign_status', { campaign_id: A.campaignId }, false)).code).toBe(
      'TOOL_NOT_AVAILABLE',
    );
    // The campaign's owner has nothing more to decide.
    expect(panel(await A.visitor.get(`/console/matching/${id}`), 'decision')).not.toContain('<button');

    const off = await B.visitor.submit(`/console/matching/${id}`, decisionPath(id), { decision: 'decline' });
    expect(off.location).toBe(`/console/matching/${id}?done=declined`);
    expect(await ok(B.applicant, 'matching_get', { matching_request_id: id }, false)).toMatchObject({
      state: 'STOPPED',
      stop_reason: 'OWNER_DECLINED',
    });
  });

  it('a campaign owner’s Decline stops the request; the applicant sees it stopped', async () => {
    const topic = word();
    const A = await campaignOwner(topic);
    const B = await applicantOwner();
    const id = await apply(B.applicant, A.call);
    await ok(A.coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });

    const declined = await A.visitor.submit(`/console/matching/${id}`, decisionPath(id), {
      decision: 'decline',
    });
    expect(declined.location).toBe(`/console/matching/${id}?done=declined`);
    const page = await A.visitor.get(declined.location ?? '');
    expect(page.text).toContain('Declined. The request stopped');
    expect(panel(page, 'decision')).toContain('<span class="badge bad">STOPPED</span>');
    expect(panel(page, 'decision')).toContain('An owner declined.');
    const seen = await ok(B.applicant, 'matching_get', { matching_request_id: id }, false);
    expect(seen).toMatchObject({ state: 'STOPPED', stop_reason: 'OWNER_DECLINED' });
    const list = await B.visitor.get('/console/matching?state=OPEN');
    expect(row(list, id)).toBe('');
    expect(row(await B.visitor.get('/console/matching'), id)).toContain('An owner declined.');
  });
});
