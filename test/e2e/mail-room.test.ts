import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, key, newMember, ok, refused } from '../support/campaigns.ts';
import { campaignMailbox, grantedMailbox } from '../support/mail.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 18, a full mailbox (docs/mail.md "Making room"): nothing is deleted automatically, so
 * the owner of record lists the stored mail and deletes what takes the room over the owner API;
 * the usage drops and the mailbox takes mail again. All or nothing, nobody else's, and evidence
 * made from a mail outlives it.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ env: { CAIRN_MAIL_DOMAIN: 'mail.cairn.test' } });
});
afterAll(async () => {
  await server?.close();
});

function mime(to: string, subject: string, body: string): Buffer {
  return Buffer.from(
    [
      'From: Alice Example <alice@example.org>',
      `To: ${to}`,
      `Subject: ${subject}`,
      'Date: Tue, 24 Nov 2026 10:00:00 +0000',
      `Message-ID: <${key()}@example.org>`,
      'MIME-Version: 1.0',
      'Content-Type: text/plain; charset=utf-8',
      '',
      body,
      '',
    ].join('\r\n'),
  );
}

/** Hands one mail to deliverMail, as every way in does; answers its one outcome. */
async function deliver(to: string, subject: string, body = `${subject}: curlews on the ridge.`) {
  const raw = mime(to, subject, body);
  const [outcome] = await server.app.services.mail.deliver({
    via: 'SMTP',
    recipients: [to],
    envelopeFrom: 'alice@example.org',
    raw,
    processed: null,
    size: raw.length,
    providerDeliveryId: null,
    remote: '127.0.0.1',
  });
  return { ...outcome!, size: raw.length };
}

async function accepted(to: string, subject: string, body?: string) {
  const outcome = await deliver(to, subject, body);
  expect(outcome).toMatchObject({ outcome: 'ACCEPTED' });
  return { mailId: outcome.mail_id as string, size: outcome.size };
}

const limitMessages = (campaignId: string, n: number) =>
  server.database.db.execute(
    sql`update mailboxes set message_limit = ${n} where campaign_id = ${campaignId}`,
  );

const api = (token: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
  ownerApi(server, token, method, path, body);

const stored = async (token: string, campaignId: string, query = '') =>
  (await api(token, 'GET', `/v1/campaigns/${campaignId}/mail/messages${query}`)).body;

const storedIds = async (token: string, campaignId: string) =>
  (await stored(token, campaignId)).mails.map((m: { mail_id: string }) => m.mail_id);

describe('making room in a mailbox', () => {
  it('a full mailbox: the owner lists the mail, deletes some, and the next mail is taken', async () => {
    const box = await grantedMailbox(server);
    const { campaignId, address, token, coordinator } = box;
    await limitMessages(campaignId, 2);
    const one = await accepted(address, 'First count');
    const two = await accepted(address, 'Second count');
    expect(await deliver(address, 'Third count')).toMatchObject({
      outcome: 'REFUSED',
      reason: 'MAILBOX_FULL',
    });
    expect((await api(token, 'GET', `/v1/campaigns/${campaignId}/mail`)).body).toMatchObject({
      full: true,
      full_since: expect.any(String),
    });

    // What takes the room, newest first.
    const list = await stored(token, campaignId);
    expect(list).toMatchObject({
      campaign_id: campaignId,
      usage: { messages: 2, bytes: one.size + two.size },
      retention_policy: { max_messages: 2 },
      full: true,
      next_before: null,
    });
    expect(list.mails).toEqual([
      {
        mail_id: two.mailId,
        from: '"Alice Example" <alice@example.org>',
        to: address,
        subject: 'Second count',
        message_id: expect.stringMatching(/@example\.org$/),
        via: 'SMTP',
        received_at: expect.any(String),
        size: two.size,
        attachments: 0,
        flags: [],
        evidence_id: null,
      },
      expect.objectContaining({ mail_id: one.mailId, subject: 'First count' }),
    ]);
    // Paged, `limit` at a time.
    const first = await stored(token, campaignId, '?limit=1');
    expect(first.mails.map((m: { mail_id: string }) => m.mail_id)).toEqual([two.mailId]);
    expect(first.next_before).toBe(two.mailId);
    const older = await stored(token, campaignId, `?limit=1&before=${first.next_before}`);
    expect(older.mails.map((m: { mail_id: string }) => m.mail_id)).toEqual([one.mailId]);
    expect(older.next_before).toBeNull();

    const deleted = await api(token, 'POST', `/v1/campaigns/${campaignId}/mail/messages/delete`, {
      mail_ids: [one.mailId],
    });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect(deleted.body).toMatchObject({
      campaign_id: campaignId,
      deleted: 1,
      mail_ids: [one.mailId],
      bytes_freed: one.size,
      usage: { messages: 1, bytes: two.size },
      full: false,
      evidence_kept: [],
    });
    // Room again: no longer full, and the full notice is cleared so the next filling is told anew.
    const view = (await api(token, 'GET', `/v1/campaigns/${campaignId}/mail`)).body;
    expect(view).toMatchObject({ full: false, full_since: null, usage: { messages: 1 } });
    expect(view.retention_policy.when_full).toContain('deleting mail');
    // The attempt keeps the mail id as history, and says the mail is gone.
    expect(view.attempts.find((a: { mail_id: string }) => a.mail_id === one.mailId)).toMatchObject({
      outcome: 'ACCEPTED',
      mail: null,
      mail_deleted: true,
    });
    expect(view.attempts.find((a: { mail_id: string }) => a.mail_id === two.mailId)).toMatchObject({
      mail: { subject: 'Second count' },
      mail_deleted: false,
    });
    // Gone for the agents too.
    const gone = await refused(
      coordinator,
      'campaign_mail_get',
      { campaign_id: campaignId, mail_id: one.mailId },
      false,
    );
    expect(gone.code).toBe('NOT_FOUND');

    // On the ledger, as the owner's act.
    const events = await ok(coordinator, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    const event = events.events.find((e: { kind: string }) => e.kind === 'MAIL_DELETED');
    expect(event).toMatchObject({
      actor: { role: 'OWNER' },
      payload: { mail_ids: [one.mailId], messages: 1, bytes: one.size, usage: { messages: 1 } },
    });

    // The next delivery is taken; the one after is refused and told anew.
    expect(await deliver(address, 'Fourth count')).toMatchObject({ outcome: 'ACCEPTED' });
    expect(await deliver(address, 'Fifth count')).toMatchObject({
      outcome: 'REFUSED',
      reason: 'MAILBOX_FULL',
    });
    const later = await ok(coordinator, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    expect(later.events.filter((e: { kind: string }) => e.kind === 'MAILBOX_FULL')).toHaveLength(2);
  });

  it('answers another owner NOT_FOUND and deletes nothing', async () => {
    const { campaignId, address, token } = await campaignMailbox(server);
    const { mailId } = await accepted(address, 'Private count');
    const stranger = await newMember(server);
    const theirs = await ownerTokenOf(server, stranger);

    const list = await api(theirs, 'GET', `/v1/campaigns/${campaignId}/mail/messages`);
    expect([list.status, list.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    expect(JSON.stringify(list.body)).not.toContain(mailId);
    const del = await api(theirs, 'POST', `/v1/campaigns/${campaignId}/mail/messages/delete`, {
      mail_ids: [mailId],
    });
    expect([del.status, del.body.error?.code]).toEqual([404, 'NOT_FOUND']);
    expect(await storedIds(token, campaignId)).toEqual([mailId]);
  });

  it('refuses the whole call when an id is no mail of the campaign, naming it; nothing is deleted', async () => {
    const { campaignId, address, token, coordinator } = await campaignMailbox(server);
    const mine = await accepted(address, 'Mine');
    // The same owner's other campaign: its mail is not this campaign's.
    const otherCampaign = await campaignWith(coordinator, []);
    const otherAddress = (
      await ok(coordinator, 'campaign_mail_address', { campaign_id: otherCampaign }, false)
    ).address as string;
    const elsewhere = await accepted(otherAddress, 'Elsewhere');
    const invented = 'mail_01JZZZZZZZZZZZZZZZZZZZZZZZ';

    const del = await api(token, 'POST', `/v1/campaigns/${campaignId}/mail/messages/delete`, {
      mail_ids: [mine.mailId, elsewhere.mailId, invented],
    });
    expect(del.status).toBe(404);
    expect(del.body.error).toMatchObject({
      code: 'NOT_FOUND',
      details: { mail_ids: [elsewhere.mailId, invented] },
    });
    expect(del.body.error.message).toContain('nothing was deleted');
    expect(await storedIds(token, campaignId)).toEqual([mine.mailId]);
    expect(await storedIds(token, otherCampaign)).toEqual([elsewhere.mailId]);
    const events = await ok(coordinator, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    expect(events.events.map((e: { kind: string }) => e.kind)).not.toContain('MAIL_DELETED');

    // Bounded and strict: 1 to 100 ids of mail, nothing else.
    const path = `/v1/campaigns/${campaignId}/mail/messages/delete`;
    for (const body of [
      { mail_ids: [] },
      { mail_ids: Array.from({ length: 101 }, (_, i) => `mail_${i}`) },
      { mail_ids: ['evd_01JZZZZZZZZZZZZZZZZZZZZZZZ'] },
      { mail_ids: [mine.mailId], all: true },
    ]) {
      const bad = await api(token, 'POST', path, body);
      expect([bad.status, bad.body.error?.code]).toEqual([422, 'VALIDATION_FAILED']);
    }
    const badQuery = await api(token, 'GET', `/v1/campaigns/${campaignId}/mail/messages?limit=500`);
    expect(badQuery.status).toBe(422);
    expect(await storedIds(token, campaignId)).toEqual([mine.mailId]);
  });

  it('keeps the evidence a mail became: still readable after the mail is deleted', async () => {
    const box = await grantedMailbox(server);
    const { campaignId, address, token, coordinator } = box;
    const quote = 'Fourteen curlew pairs nested on the north ridge this spring';
    const { mailId } = await accepted(address, 'Ridge count', `${quote}.`);
    const submitted = await ok(coordinator, 'evidence_submit', { campaign_id: campaignId, mail_id: mailId });
    const evidenceId = submitted.evidence_id as string;
    expect((await stored(token, campaignId)).mails[0]).toMatchObject({
      mail_id: mailId,
      evidence_id: evidenceId,
    });

    const deleted = await api(token, 'POST', `/v1/campaigns/${campaignId}/mail/messages/delete`, {
      mail_ids: [mailId],
    });
    expect(deleted.body).toMatchObject({
      deleted: 1,
      usage: { messages: 0, bytes: 0 },
      evidence_kept: [{ mail_id: mailId, evidence_id: evidenceId }],
    });
    expect(deleted.body.note).toContain('evidence made from these mails stays');
    expect(await storedIds(token, campaignId)).toEqual([]);

    const got = await ok(coordinator, 'evidence_get', { evidence_id: evidenceId, include_text: true }, false);
    expect(got.evidence).toMatchObject({ provenance: 'RECEIVED_MAIL', trust_label: 'UNTRUSTED_EMAIL' });
    expect(got.observation.text).toContain(quote);
    const events = await ok(coordinator, 'events_watch', { campaign_id: campaignId, wait_seconds: 1 }, false);
    expect(events.events.find((e: { kind: string }) => e.kind === 'MAIL_DELETED')?.payload).toMatchObject({
      evidence_kept: [evidenceId],
    });
  });
});
