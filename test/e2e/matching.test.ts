import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepMatching } from '../../src/domains/matching/sweep.ts';
import { FakeClock } from '../../src/kernel/clock.ts';
import { campaignWith, key, newMember, ok, refused } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { applyTo, type MatchingMember, matchingMember, openCall } from '../support/matching.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 items 1-3: matching needs the owner's consent; intents are self-reported and public
 * only where the owner allowed; one bounded proposal, answered by its responder, then decided by
 * the campaign's owner and then the joining agent's owner, ends in a join or a stop.
 */

const clock = new FakeClock(new Date());
let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  await server?.close();
});

const MATCHING_TOOLS = [
  'matching_list',
  'matching_profile',
  'matching_interest',
  'matching_requests',
  'matching_get',
  'matching_respond',
  'matching_watch',
];
const word = () => `w${Math.random().toString(36).slice(2, 10)}`;
const profile = (topic: string) => ({
  alias: 'Curlew reader',
  topic,
  help_offered: 'I read bird atlases and quote them exactly.',
  effort: 'two hours a day',
  availability: 'weekdays',
});
const decide = (m: MatchingMember, id: string, decision: 'ACCEPT' | 'DECLINE') =>
  ownerApi(server, m.ownerToken, 'POST', `/v1/matching/requests/${id}/decision`, { decision });

/** A coordinator (matching on) of a campaign that takes applications, and its call. */
async function campaignCalling(topic: string) {
  const coordinator = await matchingMember(server);
  const campaignId = await campaignWith(coordinator, [], { participation: 'APPLICATION' });
  const call = await openCall(server, coordinator, campaignId, topic);
  return { coordinator, campaignId, call };
}

describe('consent', () => {
  it('offers the matching tools only once the owner turns matching on, and tells open sessions', async () => {
    const m = await newMember(server);
    const names = async () => (await m.client.listTools()).tools.map((t) => t.name);
    expect(await names()).not.toContain('matching_list');
    const described = await ok(m, 'capabilities_describe', {}, false);
    const why = described.tools.find((t: { name: string }) => t.name === 'matching_profile');
    expect(why.available).toBe(false);
    expect(why.why).toContain('consent');
    const hidden = await callTool(m.client, 'matching_list', {});
    expect(hidden.isError).toBe(true);

    const heard = new Promise<string>((resolve) => {
      m.client.setNotificationHandler(ToolListChangedNotificationSchema, (n) => resolve(n.method));
    });
    await new Promise((r) => setTimeout(r, 200));
    const token = await ownerTokenOf(server, m);
    const on = await ownerApi(server, token, 'POST', `/v1/agents/${m.agentId}/matching`, { enabled: true });
    expect(on.status).toBe(200);
    expect(on.body.matching).toEqual({ enabled: true, public: false });
    expect(
      await Promise.race([
        heard,
        new Promise((_, no) => setTimeout(() => no(new Error('no list_changed')), 5_000)),
      ]),
    ).toBe('notifications/tools/list_changed');
    expect(await names()).toEqual(expect.arrayContaining(MATCHING_TOOLS));
    expect((await ok(m, 'identity_whoami', {}, false)).matching).toEqual({ enabled: true, public: false });

    // Another owner cannot turn it on for an identity not theirs.
    const stranger = await matchingMember(server);
    const theirs = await ownerApi(server, stranger.ownerToken, 'POST', `/v1/agents/${m.agentId}/matching`, {
      enabled: false,
    });
    expect(theirs.status).toBe(404);

    const off = await ownerApi(server, token, 'POST', `/v1/agents/${m.agentId}/matching`, { enabled: false });
    expect(off.status).toBe(200);
    expect(await names()).not.toContain('matching_list');
  });
});

describe('intents', () => {
  it('publishes one profile per identity, labelled self-reported, replaced in place and deleted on withdrawal', async () => {
    const m = await matchingMember(server);
    const topic = word();
    const first = await ok(m, 'matching_profile', profile(topic));
    expect(first.intent).toMatchObject({
      intent_id: expect.stringMatching(/^mint_/),
      kind: 'PROFILE',
      alias: 'Curlew reader',
      verification: 'SELF_REPORTED_UNVERIFIED',
      yours: true,
    });
    const again = await ok(m, 'matching_profile', { ...profile(topic), effort: 'one hour' });
    expect(again.intent.intent_id).toBe(first.intent.intent_id);
    const other = await matchingMember(server);
    const seen = await ok(other, 'matching_list', { q: topic }, false);
    expect(seen.intents).toHaveLength(1);
    expect(seen.intents[0]).toMatchObject({ effort: 'one hour', yours: false });
    expect(JSON.stringify(seen.intents[0])).not.toContain(m.agentId);

    const missing = await refused(m, 'matching_profile', { alias: 'x' });
    expect(missing.code).toBe('VALIDATION_FAILED');
    const tooLong = await callTool(m.client, 'matching_profile', {
      ...profile(topic),
      expires_in_hours: 169,
      idempotency_key: key(),
    });
    expect(tooLong.isError).toBe(true);

    const gone = await ok(m, 'matching_profile', { withdraw: true });
    expect(gone.withdrawn).toBe(true);
    expect((await ok(other, 'matching_list', { q: topic }, false)).intents).toHaveLength(0);
  });

  it('stops listing an intent once it expires (fake clock)', async () => {
    const m = await matchingMember(server);
    const topic = word();
    await ok(m, 'matching_profile', { ...profile(topic), expires_in_hours: 2 });
    const other = await matchingMember(server);
    expect((await ok(other, 'matching_list', { q: topic }, false)).intents).toHaveLength(1);
    clock.advance(2 * 3_600_000 + 1_000);
    expect((await ok(other, 'matching_list', { q: topic }, false)).intents).toHaveLength(0);
  });

  it('shows the public only what owners allowed public, never agent ids, owners or campaigns', async () => {
    const topic = word();
    const shown = await matchingMember(server, { public: true });
    const unlisted = await matchingMember(server);
    await ok(shown, 'matching_profile', profile(topic));
    await ok(unlisted, 'matching_profile', profile(topic));
    const { coordinator, campaignId } = await campaignCalling(topic);
    const res = await fetch(`${server.url}/v1/public/matching/intents?q=${topic}`);
    expect(res.status).toBe(200);
    const body = await res.json();
    // The call was opened without public: true, the second profile's owner did not allow public.
    expect(body.intents).toHaveLength(1);
    expect(Object.keys(body.intents[0]).sort()).toEqual(
      [
        'alias',
        'availability',
        'effort',
        'expires_at',
        'help_offered',
        'intent_id',
        'kind',
        'topic',
        'verification',
      ].sort(),
    );
    const text = JSON.stringify(body);
    for (const secret of [
      shown.agentId,
      unlisted.agentId,
      coordinator.agentId,
      campaignId,
      shown.ownerEmail,
    ]) {
      expect(text).not.toContain(secret);
    }
    await openCall(server, coordinator, campaignId, topic, { public: true });
    const both = await (await fetch(`${server.url}/v1/public/matching/intents?q=${topic}&limit=1`)).json();
    expect(both.intents).toHaveLength(1);
    expect(both.next_cursor).toEqual(expect.any(String));
    const second = await (
      await fetch(`${server.url}/v1/public/matching/intents?q=${topic}&limit=1&cursor=${both.next_cursor}`)
    ).json();
    expect(second.intents).toHaveLength(1);
    expect(second.intents[0].intent_id).not.toBe(both.intents[0].intent_id);
    const otherFilter = await fetch(
      `${server.url}/v1/public/matching/intents?q=${word()}&cursor=${both.next_cursor}`,
    );
    expect(otherFilter.status).toBe(400);
    expect((await otherFilter.json()).error.code).toBe('CURSOR_INVALID');
  });
});

describe('one bounded proposal', () => {
  it('joins the applicant only after the responder, the campaign owner and then the applicant owner', async () => {
    const topic = word();
    const { coordinator, campaignId, call } = await campaignCalling(topic);
    const applicant = await matchingMember(server);
    const listed = await ok(applicant, 'matching_list', { q: topic }, false);
    expect(listed.intents[0]).toMatchObject({ kind: 'APPLICATION', application_ref: call.application_ref });
    expect(listed.next_steps[0]).toMatchObject({ tool: 'matching_interest' });

    const label = await refused(applicant, 'matching_interest', {
      intent_id: call.intent_id,
      reason: 'I read atlases.',
      task_ref: 'Moorland survey team',
    });
    expect(label.code).toBe('VALIDATION_FAILED');

    const made = await applyTo(applicant, call, 'I read atlases.');
    expect(made).toMatchObject({ state: 'PROPOSED', waiting_for: 'RESPONDER', your_role: 'REQUESTER' });
    const id = made.matching_request_id as string;

    const second = await refused(applicant, 'matching_interest', {
      intent_id: call.intent_id,
      reason: 'Again.',
      task_ref: call.application_ref,
    });
    expect(second.code).toBe('MATCHING_REQUEST_OPEN');
    expect(second.details.matching_request_id).toBe(id);

    // Owners decide only after the responder accepted.
    expect((await decide(coordinator, id, 'ACCEPT')).body.error.code).toBe('MATCHING_NOT_YOUR_TURN');
    const ownAccept = await refused(applicant, 'matching_respond', {
      matching_request_id: id,
      decision: 'ACCEPT',
    });
    expect(ownAccept.code).toBe('MATCHING_NOT_YOUR_TURN');

    const seen = await ok(coordinator, 'matching_get', { matching_request_id: id }, false);
    expect(seen).toMatchObject({ your_role: 'RESPONDER', reason: 'I read atlases.' });
    expect(JSON.stringify(seen)).not.toContain(applicant.agentId);
    const accepted = await ok(coordinator, 'matching_respond', {
      matching_request_id: id,
      decision: 'ACCEPT',
      response_reason: 'Welcome, pending our owners.',
    });
    expect(accepted).toMatchObject({ state: 'TENTATIVE', waiting_for: 'CAMPAIGN_OWNER' });

    // The applicant's owner may not go first.
    const early = await decide(applicant, id, 'ACCEPT');
    expect(early.status).toBe(409);
    expect(early.body.error.code).toBe('MATCHING_NOT_YOUR_TURN');
    const turn = await ownerApi(
      server,
      coordinator.ownerToken,
      'GET',
      '/v1/matching/requests?state=YOUR_TURN',
    );
    expect(turn.body.requests.map((r: { matching_request_id: string }) => r.matching_request_id)).toContain(
      id,
    );

    const first = await decide(coordinator, id, 'ACCEPT');
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ state: 'TENTATIVE', waiting_for: 'JOINER_OWNER', your_turn: false });
    expect((await decide(coordinator, id, 'ACCEPT')).body.error.code).toBe('MATCHING_NOT_YOUR_TURN');
    // Not a member yet.
    expect((await refused(applicant, 'campaign_status', { campaign_id: campaignId }, false)).code).toBe(
      'TOOL_NOT_AVAILABLE',
    );

    const last = await decide(applicant, id, 'ACCEPT');
    expect(last.status).toBe(200);
    expect(last.body.state).toBe('JOINED');
    const after = await ok(applicant, 'matching_get', { matching_request_id: id }, false);
    expect(after).toMatchObject({ state: 'JOINED', campaign_id: campaignId });
    expect(after.next_steps[0]).toMatchObject({
      tool: 'campaign_join',
      arguments: { campaign_id: campaignId },
    });
    const status = await ok(applicant, 'campaign_status', { campaign_id: campaignId }, false);
    expect(status.campaign_id ?? status.campaign?.campaign_id).toBe(campaignId);
    expect(
      (await refused(applicant, 'matching_respond', { matching_request_id: id, decision: 'DECLINE' })).code,
    ).toBe('MATCHING_REQUEST_ENDED');
  });

  it('invites a profile into a campaign the requester coordinates; the invited agent’s owner approves last', async () => {
    const topic = word();
    const { coordinator, campaignId, call } = await campaignCalling(topic);
    const reader = await matchingMember(server);
    const { intent } = await ok(reader, 'matching_profile', profile(topic));
    const notMine = await matchingMember(server);
    const stranger = await refused(notMine, 'matching_interest', {
      intent_id: intent.intent_id,
      reason: 'Join us.',
      task_ref: call.application_ref,
    });
    expect(stranger.code).toBe('NOT_FOUND');
    const made = await ok(coordinator, 'matching_interest', {
      intent_id: intent.intent_id,
      reason: 'Join us.',
      task_ref: call.application_ref,
    });
    const id = made.matching_request_id as string;
    // Until it accepts, the campaign's owner knows the invited agent by its profile alias only.
    const before = await ownerApi(server, coordinator.ownerToken, 'GET', `/v1/matching/requests/${id}`);
    expect(before.body.joining_agent).toEqual({ alias: 'Curlew reader', shown: expect.any(String) });
    expect(JSON.stringify(before.body)).not.toContain(reader.agentId);
    const received = await ok(reader, 'matching_requests', {}, false);
    expect(received.requests.map((r: { matching_request_id: string }) => r.matching_request_id)).toContain(
      id,
    );
    await ok(reader, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
    const after = await ownerApi(server, coordinator.ownerToken, 'GET', `/v1/matching/requests/${id}`);
    expect(after.body.joining_agent.agent_id).toBe(reader.agentId);
    expect((await decide(reader, id, 'ACCEPT')).body.error.code).toBe('MATCHING_NOT_YOUR_TURN');
    expect((await decide(coordinator, id, 'ACCEPT')).body.waiting_for).toBe('JOINER_OWNER');
    expect((await decide(reader, id, 'ACCEPT')).body.state).toBe('JOINED');
    await ok(reader, 'campaign_status', { campaign_id: campaignId }, false);
  });

  it('a decline stops every open request between the agent and the campaign; a block refuses later ones', async () => {
    const topic = word();
    const { coordinator, call } = await campaignCalling(topic);
    const reader = await matchingMember(server);
    const { intent } = await ok(reader, 'matching_profile', profile(topic));
    const applied = await applyTo(reader, call, 'Let me in.');
    const invited = await ok(coordinator, 'matching_interest', {
      intent_id: intent.intent_id,
      reason: 'Join us.',
      task_ref: call.application_ref,
    });
    const declined = await ok(coordinator, 'matching_respond', {
      matching_request_id: applied.matching_request_id,
      decision: 'DECLINE',
      response_reason: 'Not this time.',
      block: true,
    });
    expect(declined).toMatchObject({ state: 'STOPPED', stop_reason: 'BLOCKED' });
    expect(declined.also_stopped).toEqual([invited.matching_request_id]);
    const other = await ok(
      reader,
      'matching_get',
      { matching_request_id: invited.matching_request_id },
      false,
    );
    expect(other.state).toBe('STOPPED');
    const again = await refused(reader, 'matching_interest', {
      intent_id: call.intent_id,
      reason: 'Please.',
      task_ref: call.application_ref,
    });
    expect(again.code).toBe('MATCHING_BLOCKED');
  });

  it('an owner decline stops the request; a withdrawal lets the requester propose again', async () => {
    const topic = word();
    const { coordinator, call } = await campaignCalling(topic);
    const applicant = await matchingMember(server);
    const args = { intent_id: call.intent_id, reason: 'Hello.', task_ref: call.application_ref };
    const first = await ok(applicant, 'matching_interest', args);
    const ownBlock = await refused(applicant, 'matching_respond', {
      matching_request_id: first.matching_request_id,
      decision: 'DECLINE',
      block: true,
    });
    expect(ownBlock.code).toBe('VALIDATION_FAILED');
    // A requester's ACCEPT with block is out of turn: no "accept without block" is offered to it.
    const ownAccept = await refused(applicant, 'matching_respond', {
      matching_request_id: first.matching_request_id,
      decision: 'ACCEPT',
      block: true,
    });
    expect(ownAccept.code).toBe('MATCHING_NOT_YOUR_TURN');
    const responderBlock = await refused(coordinator, 'matching_respond', {
      matching_request_id: first.matching_request_id,
      decision: 'ACCEPT',
      block: true,
    });
    expect(responderBlock.code).toBe('VALIDATION_FAILED');
    const withdrawn = await ok(applicant, 'matching_respond', {
      matching_request_id: first.matching_request_id,
      decision: 'DECLINE',
    });
    expect(withdrawn.stop_reason).toBe('WITHDRAWN');
    const second = await ok(applicant, 'matching_interest', args);
    await ok(coordinator, 'matching_respond', {
      matching_request_id: second.matching_request_id,
      decision: 'ACCEPT',
    });
    const no = await decide(coordinator, second.matching_request_id, 'DECLINE');
    expect(no.body).toMatchObject({ state: 'STOPPED', stop_reason: 'OWNER_DECLINED' });
    expect((await decide(applicant, second.matching_request_id, 'ACCEPT')).body.error.code).toBe(
      'MATCHING_REQUEST_ENDED',
    );
  });

  it('expires an open request after 72 hours (fake clock), for the tools and the owners alike', async () => {
    const topic = word();
    const { coordinator, call } = await campaignCalling(topic);
    const applicant = await matchingMember(server);
    const made = await applyTo(applicant, call, 'Hello.');
    const id = made.matching_request_id as string;
    expect(new Date(made.expires_at).getTime() - clock.now().getTime()).toBe(72 * 3_600_000);
    await ok(coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
    clock.advance(72 * 3_600_000 + 1_000);
    const seen = await ok(applicant, 'matching_get', { matching_request_id: id }, false);
    expect(seen).toMatchObject({ state: 'STOPPED', stop_reason: 'EXPIRED' });
    expect(seen.next_steps[0]).toMatchObject({ tool: 'matching_list' });
    const listed = await ok(applicant, 'matching_requests', { state: 'STOPPED' }, false);
    expect(listed.requests.map((r: { matching_request_id: string }) => r.matching_request_id)).toContain(id);
    expect(
      (await refused(applicant, 'matching_respond', { matching_request_id: id, decision: 'DECLINE' })).code,
    ).toBe('MATCHING_REQUEST_ENDED');
    // Owner API tokens of the test last a day: a fresh one for the campaign's owner.
    const late = await ownerApi(
      server,
      await ownerTokenOf(server, coordinator),
      'POST',
      `/v1/matching/requests/${id}/decision`,
      { decision: 'ACCEPT' },
    );
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('MATCHING_REQUEST_ENDED');
  });

  it('admits no revoked agent, even with both owners accepting', async () => {
    const topic = word();
    const { coordinator, call } = await campaignCalling(topic);
    const applicant = await matchingMember(server);
    const made = await applyTo(applicant, call, 'Hello.');
    const id = made.matching_request_id as string;
    await ok(coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
    expect((await decide(coordinator, id, 'ACCEPT')).status).toBe(200);
    const owner = await server.app.services.identity.requireOwner(applicant.ownerEmail);
    await server.app.services.management.revoke(owner.id, applicant.agentId);
    const late = await decide(applicant, id, 'ACCEPT');
    expect(late.status).toBe(409);
    expect(late.body.error.message).toContain('revoked');
    const got = await ownerApi(server, applicant.ownerToken, 'GET', `/v1/matching/requests/${id}`);
    expect(got.body).toMatchObject({ state: 'STOPPED', stop_reason: 'AGENT_REVOKED' });
  });

  it('the sweep stops the open requests of a revoked identity', async () => {
    const { coordinator, call } = await campaignCalling(word());
    const applicant = await matchingMember(server);
    const made = await applyTo(applicant, call);
    const owner = await server.app.services.identity.requireOwner(applicant.ownerEmail);
    await server.app.services.management.revoke(owner.id, applicant.agentId);
    // The real time: other files' requests on the shared database are not past it.
    const swept = await sweepMatching(server.database, new Date());
    expect(swept.revoked_requests).toBeGreaterThanOrEqual(1);
    const seen = await ok(
      coordinator,
      'matching_get',
      { matching_request_id: made.matching_request_id },
      false,
    );
    expect(seen).toMatchObject({ state: 'STOPPED', stop_reason: 'AGENT_REVOKED' });
  });

  it('the sweep stops the open requests of a campaign its owner closed', async () => {
    const { coordinator, campaignId, call } = await campaignCalling(word());
    const applicant = await matchingMember(server);
    const made = await applyTo(applicant, call);
    const token = await ownerTokenOf(server, coordinator);
    expect((await ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/close`, {})).status).toBe(200);
    const swept = await sweepMatching(server.database, new Date());
    expect(swept.closed_campaign_requests).toBeGreaterThanOrEqual(1);
    const seen = await ok(
      applicant,
      'matching_get',
      { matching_request_id: made.matching_request_id },
      false,
    );
    expect(seen).toMatchObject({ state: 'STOPPED', stop_reason: 'CAMPAIGN_CLOSED' });
  });

  it("an owner's decision on a request of a campaign that closed stops it with CAMPAIGN_CLOSED", async () => {
    const { coordinator, campaignId, call } = await campaignCalling(word());
    const applicant = await matchingMember(server);
    const id = (await applyTo(applicant, call, 'Hello.')).matching_request_id as string;
    await ok(coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
    expect(
      (await ownerApi(server, coordinator.ownerToken, 'POST', `/v1/campaigns/${campaignId}/close`, {}))
        .status,
    ).toBe(200);
    const late = await decide(coordinator, id, 'ACCEPT');
    expect([late.status, late.body.error.code]).toEqual([409, 'CAMPAIGN_CLOSED']);
    const got = await ownerApi(server, applicant.ownerToken, 'GET', `/v1/matching/requests/${id}`);
    expect(got.body).toMatchObject({ state: 'STOPPED', stop_reason: 'CAMPAIGN_CLOSED' });
  });

  it('a stopped campaign stops its requests: by the sweep, and at an owner decision (CAMPAIGN_STOPPING)', async () => {
    const { coordinator, campaignId, call } = await campaignCalling(word());
    const swept = await matchingMember(server);
    const sweptId = (await applyTo(swept, call)).matching_request_id as string;
    const decided = await matchingMember(server);
    const decidedId = (await applyTo(decided, call, 'Hello.')).matching_request_id as string;
    await ok(coordinator, 'matching_respond', { matching_request_id: decidedId, decision: 'ACCEPT' });
    const stop = `/v1/campaigns/${campaignId}/stop`;
    expect((await ownerApi(server, coordinator.ownerToken, 'POST', stop, {})).status).toBe(200);
    const late = await decide(coordinator, decidedId, 'ACCEPT');
    expect([late.status, late.body.error.code]).toEqual([409, 'CAMPAIGN_STOPPING']);
    const got = await ownerApi(server, decided.ownerToken, 'GET', `/v1/matching/requests/${decidedId}`);
    expect(got.body).toMatchObject({ state: 'STOPPED', stop_reason: 'CAMPAIGN_STOPPED' });
    expect(
      (await sweepMatching(server.database, new Date())).stopped_campaign_requests,
    ).toBeGreaterThanOrEqual(1);
    const seen = await ok(swept, 'matching_get', { matching_request_id: sweptId }, false);
    expect(seen).toMatchObject({ state: 'STOPPED', stop_reason: 'CAMPAIGN_STOPPED' });
  });

  it('keeps at most 20 requests of one requester open at once', async () => {
    const topic = word();
    const { coordinator, call } = await campaignCalling(topic);
    const readers = await Promise.all(Array.from({ length: 21 }, () => matchingMember(server)));
    const intents = await Promise.all(
      readers.map(async (r) => (await ok(r, 'matching_profile', profile(topic))).intent),
    );
    const invite = (intentId: string) => ({
      intent_id: intentId,
      reason: 'Join us.',
      task_ref: call.application_ref,
    });
    for (const intent of intents.slice(0, 20))
      await ok(coordinator, 'matching_interest', invite(intent.intent_id));
    const full = await refused(coordinator, 'matching_interest', invite(intents[20].intent_id));
    expect(full.code).toBe('CONFLICT');
    expect(full.details).toEqual({ open_requests: 20, max_open: 20 });
    // Withdrawing one makes room.
    const mine = await ok(coordinator, 'matching_requests', { state: 'PROPOSED', limit: 1 }, false);
    await ok(coordinator, 'matching_respond', {
      matching_request_id: mine.requests[0].matching_request_id,
      decision: 'DECLINE',
    });
    await ok(coordinator, 'matching_interest', invite(intents[20].intent_id));
  });

  it('turning consent off withdraws the profile and stops the open requests', async () => {
    const topic = word();
    const { coordinator, call } = await campaignCalling(topic);
    const applicant = await matchingMember(server);
    const made = await applyTo(applicant, call, 'Hello.');
    const off = await ownerApi(
      server,
      applicant.ownerToken,
      'POST',
      `/v1/agents/${applicant.agentId}/matching`,
      {
        enabled: false,
      },
    );
    expect(off.body.stopped_requests).toEqual([made.matching_request_id]);
    const seen = await ok(
      coordinator,
      'matching_get',
      { matching_request_id: made.matching_request_id },
      false,
    );
    expect(seen).toMatchObject({ state: 'STOPPED', stop_reason: 'CONSENT_WITHDRAWN' });
  });
});

describe('matching_watch', () => {
  it('wakes on a change of one of the caller’s requests, and not on others', async () => {
    const topic = word();
    const { coordinator, call } = await campaignCalling(topic);
    const start = await ok(coordinator, 'matching_watch', { timeout_seconds: 1 }, false);
    expect(start.timed_out).toBe(true);
    const waiting = ok(
      coordinator,
      'matching_watch',
      { after_cursor: start.cursor, timeout_seconds: 20 },
      false,
    );
    await new Promise((r) => setTimeout(r, 300));
    // Someone else's request elsewhere does not wake it with a change.
    const elsewhere = await campaignCalling(word());
    const outsider = await matchingMember(server);
    await applyTo(outsider, elsewhere.call, 'Hi.');
    const applicant = await matchingMember(server);
    const made = await applyTo(applicant, call, 'Hello.');
    const woke = await waiting;
    expect(woke.changes).toEqual([
      { matching_request_id: made.matching_request_id, state: 'PROPOSED', at: expect.any(String) },
    ]);
    const tampered = await refused(
      coordinator,
      'matching_watch',
      { after_cursor: `${woke.cursor}x`, timeout_seconds: 1 },
      false,
    );
    expect(tampered.code).toBe('CURSOR_INVALID');
  });

  it('rechecks consent after waiting', async () => {
    const m = await matchingMember(server);
    const waiting = callTool(m.client, 'matching_watch', { timeout_seconds: 3 });
    await new Promise((r) => setTimeout(r, 300));
    await ownerApi(server, m.ownerToken, 'POST', `/v1/agents/${m.agentId}/matching`, { enabled: false });
    const res = await waiting;
    expect(res.isError).toBe(true);
    expect(res.body.error.code).toBe('TOOL_NOT_AVAILABLE');
  });
});
