import { sql } from 'drizzle-orm';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, key, newMember, ok } from '../support/campaigns.ts';
import { campaignMailbox, closeCampaign } from '../support/mail.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { freePort, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 18 item 2: the built-in SMTP receiver of a real server (CAIRN_SMTP_PORT), with a real
 * SMTP client over loopback: mail for a campaign's address is stored and wakes a waiting reader;
 * any other recipient is refused at RCPT TO, so nothing is ever relayed.
 */

let server: TestServer;
let port: number;
beforeAll(async () => {
  port = await freePort();
  server = await startTestServer({
    env: { CAIRN_MAIL_DOMAIN: 'mail.cairn.test', CAIRN_SMTP_PORT: String(port) },
  });
});
afterAll(async () => {
  await server?.close();
});

const client = () =>
  nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    name: 'sender.test',
  });

describe('the built-in SMTP receiver', () => {
  it('stores mail for a campaign address, wakes campaign_mail_wait, and refuses other recipients at RCPT', async () => {
    expect(server.app.ports.smtp).toBe(port);
    const coordinator = await newMember(server);
    const campaignId = await campaignWith(coordinator, []);
    const address = (await ok(coordinator, 'campaign_mail_address', { campaign_id: campaignId }, false))
      .address;
    const asked = await ok(coordinator, 'campaign_mail_request_access', {
      campaign_id: campaignId,
      reason: 'Replies.',
    });
    const token = await ownerTokenOf(server, coordinator);
    await ownerApi(
      server,
      token,
      'POST',
      `/v1/campaigns/${campaignId}/mail/access-requests/${asked.request_id}/decision`,
      {
        decision: 'APPROVE',
      },
    );
    const idle = await ok(
      coordinator,
      'campaign_mail_wait',
      { campaign_id: campaignId, timeout_seconds: 1 },
      false,
    );
    const waiting = ok(
      coordinator,
      'campaign_mail_wait',
      { campaign_id: campaignId, after_cursor: idle.cursor, timeout_seconds: 25 },
      false,
    );

    const sent = await client().sendMail({
      from: 'Alice <alice@example.org>',
      to: address,
      subject: 'Over SMTP',
      text: 'Lapwings display over the wet meadow.',
      messageId: `<${key()}@example.org>`,
    });
    expect(sent.accepted).toEqual([address]);
    const woken = await waiting;
    expect(woken.mails.map((m: { subject: string }) => m.subject)).toEqual(['Over SMTP']);
    const got = await ok(
      coordinator,
      'campaign_mail_get',
      { campaign_id: campaignId, mail_id: woken.mails[0].mail_id },
      false,
    );
    expect(got.window.text).toContain('Lapwings display over the wet meadow.');

    // Not a mailbox here: refused at RCPT TO, nothing relayed or stored.
    await expect(
      client().sendMail({
        from: 'alice@example.org',
        to: 'someone@elsewhere.example',
        subject: 'relay?',
        text: 'x',
      }),
    ).rejects.toMatchObject({ responseCode: 550 });
    const view = await ownerApi(server, token, 'GET', `/v1/campaigns/${campaignId}/mail`);
    expect(view.body).toMatchObject({ delivery_state: 'VERIFIED', usage: { messages: 1 } });
    expect(view.body.attempts[0]).toMatchObject({ via: 'SMTP', outcome: 'ACCEPTED' });
  });

  it('decides each recipient at RCPT TO: a full or closed mailbox is refused there, recorded, and the others still get the mail', async () => {
    const full = await campaignMailbox(server);
    const closed = await campaignMailbox(server);
    const open = await campaignMailbox(server);
    await server.database.db.execute(
      sql`update mailboxes set message_limit = 1 where campaign_id = ${full.campaignId}`,
    );
    const first = await client().sendMail({
      from: 'alice@example.org',
      to: full.address,
      subject: 'fills it',
      text: 'The only mail that fits.',
    });
    expect(first.accepted).toEqual([full.address]);
    await closeCampaign(server, closed);

    const sent = await client().sendMail({
      from: 'alice@example.org',
      to: [full.address, closed.address, open.address],
      subject: 'to three',
      text: 'Golden plover on the plateau.',
      messageId: `<${key()}@example.org>`,
    });
    expect(sent.accepted).toEqual([open.address]);
    expect(sent.rejected.sort()).toEqual([closed.address, full.address].sort());
    const codes = Object.fromEntries(
      (
        sent as unknown as {
          rejectedErrors: Array<{ recipient: string; responseCode: number; response: string }>;
        }
      ).rejectedErrors.map((e) => [e.recipient, e.response]),
    );
    // Full is temporary (the sender's server keeps the mail and retries); closed is final.
    expect(codes[full.address]).toMatch(/^452 4\.2\.2 Mailbox full/);
    expect(codes[closed.address]).toMatch(/^550 5\.1\.1 Mailbox closed/);

    const seen = async (box: typeof full) =>
      (await ownerApi(server, box.token, 'GET', `/v1/campaigns/${box.campaignId}/mail`)).body;
    const fullView = await seen(full);
    expect(fullView).toMatchObject({ full: true, full_since: expect.any(String), usage: { messages: 1 } });
    expect(fullView.attempts[0]).toMatchObject({
      via: 'SMTP',
      outcome: 'REFUSED',
      reason: 'MAILBOX_FULL',
      recipient: full.address,
      size: null,
    });
    expect((await seen(closed)).attempts[0]).toMatchObject({ outcome: 'REFUSED', reason: 'CAMPAIGN_CLOSED' });
    expect((await seen(open)).usage).toMatchObject({ messages: 1 });

    // The owner is told once per filling, however often the sender retries.
    await expect(
      client().sendMail({ from: 'a@example.org', to: full.address, text: 'again' }),
    ).rejects.toMatchObject({
      responseCode: 452,
    });
    const events = await ok(
      full.coordinator,
      'events_watch',
      { campaign_id: full.campaignId, wait_seconds: 1 },
      false,
    );
    expect(events.events.filter((e: { kind: string }) => e.kind === 'MAILBOX_FULL')).toHaveLength(1);
    expect(
      (await seen(full)).attempts.filter((a: { reason: string }) => a.reason === 'MAILBOX_FULL'),
    ).toHaveLength(2);

    // Room again (here: a larger limit): mail is taken, and the next filling is told anew.
    await server.database.db.execute(
      sql`update mailboxes set message_limit = 2 where campaign_id = ${full.campaignId}`,
    );
    await client().sendMail({ from: 'a@example.org', to: full.address, text: 'fits now' });
    expect(await seen(full)).toMatchObject({ full: true, full_since: null, usage: { messages: 2 } });
    await expect(
      client().sendMail({ from: 'a@example.org', to: full.address, text: 'no room' }),
    ).rejects.toMatchObject({
      responseCode: 452,
    });
    const later = await ok(
      full.coordinator,
      'events_watch',
      { campaign_id: full.campaignId, wait_seconds: 1 },
      false,
    );
    expect(later.events.filter((e: { kind: string }) => e.kind === 'MAILBOX_FULL')).toHaveLength(2);
  });

  it('records a message refused for its size as an attempt the owner sees (issue 40)', async () => {
    const box = await campaignMailbox(server);
    await expect(
      client().sendMail({ from: 'a@example.org', to: box.address, text: 'x'.repeat(2 * 1024 * 1024 + 10) }),
    ).rejects.toMatchObject({ responseCode: 552 });
    const view = (await ownerApi(server, box.token, 'GET', `/v1/campaigns/${box.campaignId}/mail`)).body;
    expect(view.attempts[0]).toMatchObject({
      via: 'SMTP',
      outcome: 'REFUSED',
      reason: 'TOO_LARGE',
      recipient: box.address,
    });
    expect(view.attempts[0].size).toBeGreaterThan(2 * 1024 * 1024);
    expect(view.usage).toMatchObject({ messages: 0 });
  });
});
