import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, key, newMember, ok } from '../support/campaigns.ts';
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
    expect(server.app.smtpPort).toBe(port);
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
});
