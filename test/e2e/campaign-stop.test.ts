import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  campaignWith,
  claimedTask,
  conditions,
  newMember,
  ok,
  publishTask,
  refused,
} from '../support/campaigns.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { campaignMailbox } from '../support/mail.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 39 item 1: the stop phase before a close. A STOPPING campaign lets running leases finish
 * (heartbeats, reads under the lease, submission, messages) and refuses what starts new work:
 * claims, publications, invitations and joins, mail, board entries and pickups, matched joins.
 * The owner resumes it or closes it.
 */

let site: FixtureSite;
let server: TestServer;
beforeAll(async () => {
  site = await startFixtureSite();
  server = await startTestServer({ env: { ...site.env, CAIRN_MAIL_DOMAIN: 'mail.cairn.test' } });
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

const stop = (token: string, campaignId: string, body: Record<string, unknown> = {}) =>
  ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/stop`, body);
const resume = (token: string, campaignId: string) =>
  ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/resume`, {});

describe('stopping a campaign', () => {
  it('running work finishes while nothing new starts; resume and close follow', async () => {
    const box = await campaignMailbox(server);
    const { coordinator, campaignId, token } = box;
    const worker = await newMember(server);
    const idle = await newMember(server);
    await ok(worker, 'campaign_join', { campaign_id: campaignId });
    await ok(idle, 'campaign_join', { campaign_id: campaignId });
    const held = await claimedTask(coordinator, worker, campaignId);
    const open = await publishTask(coordinator, campaignId);

    // Another owner cannot stop it, nor learn that it exists.
    const stranger = await ownerTokenOf(server, worker);
    const foreign = await stop(stranger, campaignId);
    expect([foreign.status, foreign.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const tooLong = await stop(token, campaignId, { reason: 'x'.repeat(501) });
    expect(tooLong.status).toBe(422);

    const stopped = await stop(token, campaignId, { reason: 'wrapping up' });
    expect(stopped.status).toBe(200);
    expect(stopped.body).toMatchObject({
      campaign_id: campaignId,
      status: 'STOPPING',
      stop_reason: 'wrapping up',
      already_stopping: false,
      running_leases: 1,
    });
    expect(stopped.body.next).toContain(`/v1/campaigns/${campaignId}/close`);
    // A repeat is harmless and says so.
    expect((await stop(token, campaignId)).body).toMatchObject({
      status: 'STOPPING',
      already_stopping: true,
    });

    // Nothing new: a claim, a publication, an invitation, a join.
    const claim = await refused(idle, 'task_claim', { task_id: open });
    expect(claim.code).toBe('CAMPAIGN_STOPPING');
    const moves = (claim as unknown as { allowed_alternatives: Array<{ tool: string }> })
      .allowed_alternatives;
    expect(moves.map((a) => a.tool)).toEqual(['campaign_status', 'task_list']);
    expect(
      (
        await refused(coordinator, 'task_publish', {
          campaign_id: campaignId,
          title: 'Late task',
          objective: 'One more fact.',
          acceptance: 'A quotation.',
          conditions: conditions(),
        })
      ).code,
    ).toBe('CAMPAIGN_STOPPING');
    const newcomer = await newMember(server);
    const invite = await refused(coordinator, 'campaign_invite', {
      campaign_id: campaignId,
      agent_id: newcomer.agentId,
      role: 'PARTICIPANT',
    });
    expect(invite.code).toBe('CAMPAIGN_STOPPING');
    expect((await refused(newcomer, 'campaign_join', { campaign_id: campaignId })).code).toBe(
      'CAMPAIGN_STOPPING',
    );
    // The owner still talks to the members.
    const comment = await ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/messages`, {
      type: 'NOTE',
      content: 'Please hand in what you hold.',
    });
    expect(comment.status).toBeLessThan(300);
    // Mail is refused at RCPT TO and at delivery, and the attempt is recorded with its reason.
    expect(await server.app.services.mail.checkRecipient(box.address, '127.0.0.1')).toBe('CAMPAIGN_STOPPED');
    const raw = Buffer.from(`From: a@example.org\r\nTo: ${box.address}\r\nSubject: hi\r\n\r\nHello.\r\n`);
    const [mail] = await server.app.services.mail.deliver({
      via: 'SMTP',
      recipients: [box.address],
      envelopeFrom: 'a@example.org',
      raw,
      processed: null,
      size: raw.length,
      providerDeliveryId: null,
      remote: '127.0.0.1',
    });
    expect(mail).toMatchObject({ outcome: 'REFUSED', reason: 'CAMPAIGN_STOPPED' });

    // What runs goes on: a heartbeat, a read under the lease, a message, the submission.
    await ok(worker, 'task_heartbeat', { task_id: held.taskId, lease_id: held.leaseId }, false);
    const read = await ok(
      worker,
      'fetch_text',
      { url: `${site.origin}/article`, declared_purpose: 'Campaign task.' },
      false,
    );
    await ok(worker, 'message_append', { campaign_id: campaignId, type: 'NOTE', content: 'Finishing up.' });
    const done = await ok(worker, 'task_complete', {
      task_id: held.taskId,
      lease_id: held.leaseId,
      evidence_ids: [read.evidence_id],
      claimed_outcome: 'COMPLETE',
      summary: `"${ARTICLE_QUOTE}"`,
    });
    expect(done.status).not.toBe('IN_PROGRESS');
    // Members see the state and the reason.
    const status = await ok(worker, 'campaign_status', { campaign_id: campaignId }, false);
    expect(JSON.stringify(status)).toContain('STOPPING');
    const watched = await ok(
      worker,
      'events_watch',
      { campaign_id: campaignId, wait_seconds: 1, limit: 200 },
      false,
    );
    const event = (watched.events as Array<{ kind: string; payload: { reason?: string } }>).find(
      (e) => e.kind === 'CAMPAIGN_STOPPED',
    );
    expect(event?.payload.reason).toBe('wrapping up');

    // Resumed, it takes new work again.
    const resumed = await resume(token, campaignId);
    expect(resumed.body).toMatchObject({ status: 'ACTIVE', already_active: false, stopped_at: null });
    await ok(idle, 'task_claim', { task_id: open });

    // Stopped again and closed: the close settles what is left, and a closed campaign cannot be
    // stopped or resumed.
    await stop(token, campaignId);
    const closed = await ownerApi(server, token, 'POST', `/v1/campaigns/${campaignId}/close`, {});
    expect(closed.body).toMatchObject({ status: 'CLOSED', settled: { leases_ended: 1 } });
    for (const res of [await stop(token, campaignId), await resume(token, campaignId)]) {
      expect([res.status, res.body.error.code]).toEqual([409, 'CAMPAIGN_CLOSED']);
    }
  });

  it('a listed task cannot be picked up, nor a board published, while the campaign stops', async () => {
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    const token = await ownerTokenOf(server, coordinator);
    const listed = await publishTask(coordinator, campaignId, {
      conditions: { ...conditions(), participation: 'OPEN', publish_contract: true },
    });
    const slug = `stop-${Math.random().toString(36).slice(2, 10)}`;
    const made = await ownerApi(server, token, 'POST', '/v1/boards', {
      slug,
      title: 'Moorland facts',
      purpose: 'WORK',
      campaign_id: campaignId,
      task_ids: [listed],
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const taskRef = made.body.tasks[0].task_ref as string;
    await stop(token, campaignId);

    const taker = await newMember(server);
    const take = await refused(taker, 'public_task_take', { board: slug, task_ref: taskRef });
    expect(take.code).toBe('CAMPAIGN_STOPPING');
    const board = await (await fetch(`${server.url}/v1/public/boards/${slug}`)).json();
    expect(board.tasks[0].available).toBe(false);
    const another = await ownerApi(server, token, 'POST', '/v1/boards', {
      slug: `${slug}-2`,
      title: 'More facts',
      purpose: 'WORK',
      campaign_id: campaignId,
      task_ids: [listed],
    });
    expect([another.status, another.body.error.code]).toEqual([409, 'CAMPAIGN_STOPPING']);
    expect(another.body.error.next_action).toContain(`/v1/campaigns/${campaignId}/resume`);

    await resume(token, campaignId);
    expect((await ok(taker, 'public_task_take', { board: slug, task_ref: taskRef })).board).toBe(slug);
  });
});
