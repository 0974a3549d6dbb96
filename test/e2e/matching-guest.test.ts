import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, ok, refused } from '../support/campaigns.ts';
import { csrfOf, errorOf, Visitor } from '../support/console-visitor.ts';
import { callTool, connectClient } from '../support/factories.ts';
import { applyTo, type MatchingMember, matchingMember, openCall } from '../support/matching.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 item 4, cross-workspace guest pairing (docs/matching.md): once both owners accepted a
 * request, the joining agent's owner may have a guest identity join instead of the agent itself.
 * matching_get then answers pairing_required with how to pair; POST /oauth/device_authorization
 * with matching_request_id and the participant's bearer starts it; only that owner approves at
 * /pair; the guest joins the campaign and is bound to it alone.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

const PASSWORD = 'correct horse battery staple';
const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

async function deviceAuthorization(body: Record<string, unknown>, bearer?: string) {
  const res = await fetch(`${server.url}/oauth/device_authorization`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(bearer ? { authorization: `Bearer ${bearer}` } : {}),
    },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

async function signedIn(email: string): Promise<Visitor> {
  const v = new Visitor(server.url);
  const form = await v.get('/console/signin');
  const res = await v.post('/console/signin', { csrf: csrfOf(form.text), email, password: PASSWORD });
  expect(res.status).toBe(303);
  return v;
}

/** An applicant's request that both owners accepted, its owner choosing a guest identity. */
async function requestForGuest() {
  const coordinator = await matchingMember(server);
  const campaignId = await campaignWith(coordinator, [], { participation: 'APPLICATION' });
  const call = await openCall(server, coordinator, campaignId, `t${Math.random().toString(36).slice(2)}`);
  const applicant = await matchingMember(server);
  const made = await applyTo(applicant, call, 'I read atlases.');
  const id = made.matching_request_id as string;
  await ok(coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
  const decide = (m: MatchingMember, body: Record<string, unknown>) =>
    ownerApi(server, m.ownerToken, 'POST', `/v1/matching/requests/${id}/decision`, body);
  expect((await decide(coordinator, { decision: 'ACCEPT' })).status).toBe(200);
  return { coordinator, campaignId, applicant, id, decide };
}

describe('cross-workspace guest pairing', () => {
  it('pairs a guest identity bound to the request, approved at /pair by the participant’s owner only', async () => {
    const { coordinator, campaignId, applicant, id, decide } = await requestForGuest();
    const pairing = { display_name: 'Atlas guest', runtime: 'claude-code', matching_request_id: id };

    // Before the owner chose a guest, the request takes none.
    const early = await deviceAuthorization(pairing, applicant.key);
    expect(early.status).toBe(400);
    expect(early.body.error).toBe('invalid_request');

    const chosen = await decide(applicant, { decision: 'ACCEPT', join_as: 'GUEST' });
    expect(chosen.status).toBe(200);
    expect(chosen.body).toMatchObject({ state: 'TENTATIVE', waiting_for: 'GUEST_PAIRING' });

    const got = await ok(applicant, 'matching_get', { matching_request_id: id }, false);
    expect(got.status).toBe('pairing_required');
    expect(got.pairing.body.matching_request_id).toBe(id);
    // The campaign side sees no pairing to do.
    expect((await ok(coordinator, 'matching_get', { matching_request_id: id }, false)).status).toBe('ok');

    const anonymous = await deviceAuthorization(pairing);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error).toBe('invalid_token');
    expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const forged = await deviceAuthorization(pairing, 'cd_acc_not-a-token');
    expect(forged.status).toBe(401);
    const other = await deviceAuthorization(pairing, coordinator.key);
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('invalid_request');

    const grant = await deviceAuthorization(pairing, applicant.key);
    expect(grant.status).toBe(200);
    expect(grant.body.say_to_user).toContain('Moorland survey');

    // The campaign's owner may not approve the other side's guest.
    const wrong = await signedIn(coordinator.ownerEmail);
    const wrongPage = await wrong.get(`/pair?code=${grant.body.user_code}`);
    expect(wrongPage.text).toContain('Guest identity for a matching request');
    const refusedApproval = await wrong.post('/pair', {
      csrf: csrfOf(wrongPage.text),
      code: grant.body.user_code,
      decision: 'approve',
    });
    expect(errorOf(refusedApproval.text)).toContain('Only the owner of the agent');

    const owner = await signedIn(applicant.ownerEmail);
    const page = await owner.get(`/pair?code=${grant.body.user_code}`);
    expect(page.text).not.toContain('Activate public reading');
    const approved = await owner.post('/pair', {
      csrf: csrfOf(page.text),
      code: grant.body.user_code,
      decision: 'approve',
      activate_read: 'on',
    });
    expect(approved.status).toBe(200);

    const token = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: grant.body.device_code }).toString(),
    });
    expect(token.status).toBe(200);
    const tokens = await token.json();
    expect(tokens.agent_id).not.toBe(applicant.agentId);

    const joined = await ok(applicant, 'matching_get', { matching_request_id: id }, false);
    // The agent its owner kept out learns that the guest joined, not the campaign to join itself.
    expect(joined).toMatchObject({ state: 'JOINED', joined_agent_id: tokens.agent_id });
    expect(joined.campaign_id).toBeUndefined();
    expect(JSON.stringify(joined.next_steps)).not.toContain('campaign_join');
    // The guest is the member, not the applicant.
    expect((await refused(applicant, 'campaign_status', { campaign_id: campaignId }, false)).code).toBe(
      'TOOL_NOT_AVAILABLE',
    );
    const guest = { client: await connectClient(server.url, tokens.access_token) };
    const status = await callTool(guest.client, 'campaign_status', { campaign_id: campaignId });
    expect(status.isError, JSON.stringify(status.body)).toBe(false);

    // Bound to that campaign alone: no campaigns of its own, no reading mode, no matching.
    const created = await callTool(guest.client, 'campaign_create', {
      title: 'Elsewhere',
      objective: 'Anything else.',
      allow_agent_publish: false,
      visibility: 'SHARED',
      participation: 'OPEN',
      idempotency_key: 'guest-create',
    });
    expect(created.isError).toBe(true);
    const whoami = await callTool(guest.client, 'identity_whoami', {});
    expect(whoami.body.mode).toBe('CAMPAIGN');
    expect(whoami.body.guest).toEqual({ matching_request_id: id, campaign_id: campaignId });
    const consent = await ownerApi(
      server,
      applicant.ownerToken,
      'POST',
      `/v1/agents/${tokens.agent_id}/matching`,
      {
        enabled: true,
      },
    );
    expect(consent.status).toBe(409);
    const owned = await server.app.services.identity.requireOwner(applicant.ownerEmail);
    // Nor from the console: a guest cannot coordinate a campaign of its owner's.
    await expect(
      server.app.services.campaigns.createCampaign(owned.id, tokens.agent_id, {
        title: 'Elsewhere',
        objective: 'Anything else.',
        allow_agent_publish: false,
        visibility: 'SHARED',
        participation: 'OPEN',
      }),
    ).rejects.toThrow(/guest identity/);
    await expect(server.app.services.management.setMode(owned.id, tokens.agent_id, 'READ')).rejects.toThrow(
      /guest identity/,
    );
    await guest.client.close();
  });

  it('an ordinary pairing needs no bearer, and a guest pairing names a request of the caller', async () => {
    const plain = await deviceAuthorization({ display_name: 'Plain', runtime: 'cursor' });
    expect(plain.status).toBe(200);
    const { applicant } = await requestForGuest();
    const unknown = await deviceAuthorization(
      { display_name: 'Guest', runtime: 'cursor', matching_request_id: 'mreq_01JZZZZZZZZZZZZZZZZZZZZZZZ' },
      applicant.key,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_request');
  });
});
