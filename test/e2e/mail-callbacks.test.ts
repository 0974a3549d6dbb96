import { createHmac, generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { key, ok } from '../support/campaigns.ts';
import { campaignMailbox, grantMailAccess } from '../support/mail.ts';
import { ownerApi } from '../support/owner-api.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 18 item 2: the providers' callbacks, signed the way Mailgun and Postal sign (keys made
 * here), end in the same mailbox as the SMTP receiver; every refusal is a recorded attempt.
 */

const SIGNING_KEY = `key-${randomBytes(16).toString('hex')}`;
const POSTAL_API_KEY = randomBytes(24).toString('hex');
const postalKeys = generateKeyPairSync('rsa', { modulusLength: 2048 });
const POSTAL_PUBLIC = postalKeys.publicKey.export({ type: 'spki', format: 'pem' }).toString();

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({
    env: {
      CAIRN_MAIL_DOMAIN: 'mail.cairn.test',
      CAIRN_MAILGUN_SIGNING_KEY: SIGNING_KEY,
      CAIRN_POSTAL_PUBLIC_KEY: POSTAL_PUBLIC,
      CAIRN_POSTAL_API_KEY: POSTAL_API_KEY,
    },
  });
});
afterAll(async () => {
  await server?.close();
});

function mailgunForm(
  recipient: string,
  extra: Record<string, string> = {},
  at = Math.floor(Date.now() / 1000),
) {
  const token = randomBytes(25).toString('hex');
  const signature = createHmac('sha256', SIGNING_KEY).update(`${at}${token}`).digest('hex');
  return new URLSearchParams({
    timestamp: String(at),
    token,
    signature,
    recipient,
    sender: 'alice@example.org',
    from: 'Alice <alice@example.org>',
    subject: 'Survey replies',
    'body-plain': 'Three curlews on the north ridge.',
    'Message-Id': `<${key()}@example.org>`,
    ...extra,
  });
}

const post = (path: string, body: string | Buffer, headers: Record<string, string>) =>
  fetch(`${server.url}${path}`, {
    method: 'POST',
    body: typeof body === 'string' ? body : new Uint8Array(body),
    headers,
  });

function postalBody(recipient: string, id: number) {
  return Buffer.from(
    JSON.stringify({
      id,
      rcpt_to: recipient,
      mail_from: 'alice@example.org',
      token: randomBytes(6).toString('hex'),
      subject: 'Postal says hello',
      message_id: `${key()}@example.org`,
      timestamp: Date.now() / 1000,
      size: '120',
      from: 'Alice <alice@example.org>',
      to: recipient,
      plain_body: 'Golden plovers by the cairn.',
      html_body: null,
      attachment_quantity: 0,
      attachments: [],
    }),
  );
}

const postalSignature = (body: Buffer) => sign('RSA-SHA256', body, postalKeys.privateKey).toString('base64');

describe('Mailgun callback', () => {
  it('stores a signed post, and refuses bad signatures, stale timestamps and replays', async () => {
    const { campaignId, address, token } = await campaignMailbox(server);
    const form = mailgunForm(address);
    const accepted = await post('/v1/mailgun/inbound/json', form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(accepted.status).toBe(200);
    expect((await accepted.json()).outcomes).toEqual([{ recipient: address, outcome: 'ACCEPTED' }]);

    // The same signed post again is a replay: answered 200 so Mailgun stops, stored once.
    const replay = await post('/v1/mailgun/inbound/json', form.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect((await replay.json()).outcomes[0]).toMatchObject({ outcome: 'REFUSED', reason: 'REPLAYED' });

    // The signature covers timestamp and token only: the same triple for another mailbox is a
    // replay too, so a captured post cannot be pointed elsewhere.
    const other = await campaignMailbox(server);
    const redirected = new URLSearchParams(form);
    redirected.set('recipient', other.address);
    const moved = await post('/v1/mailgun/inbound/json', redirected.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect((await moved.json()).outcomes[0]).toMatchObject({ recipient: other.address, reason: 'REPLAYED' });
    const otherView = await ownerApi(server, other.token, 'GET', `/v1/campaigns/${other.campaignId}/mail`);
    expect(otherView.body.usage.messages).toBe(0);

    // More recipients than one message may have: refused whole.
    const crowd = mailgunForm(Array.from({ length: 21 }, (_, i) => `x${i}-${address}`).join(','));
    expect(
      (
        await post('/v1/mailgun/inbound/json', crowd.toString(), {
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(406);

    const forged = mailgunForm(address);
    forged.set('signature', 'f'.repeat(64));
    expect(
      (
        await post('/v1/mailgun/inbound/json', forged.toString(), {
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).status,
    ).toBe(401);
    const stale = mailgunForm(address, {}, Math.floor(Date.now() / 1000) - 3600);
    const staleAnswer = await post('/v1/mailgun/inbound/json', stale.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect([staleAnswer.status, (await staleAnswer.json()).error.code]).toEqual([401, 'STALE_TIMESTAMP']);

    const unknown = mailgunForm('nobody-zz@mail.cairn.test');
    const unknownAnswer = await post('/v1/mailgun/inbound/json', unknown.toString(), {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect([unknownAnswer.status, (await unknownAnswer.json()).error.code]).toEqual([406, 'UNKNOWN_MAILBOX']);

    const view = await ownerApi(server, token, 'GET', `/v1/campaigns/${campaignId}/mail`);
    expect(view.body.usage.messages).toBe(1);
    expect(view.body.attempts.map((a: { outcome: string; via: string }) => `${a.via}:${a.outcome}`)).toEqual(
      expect.arrayContaining(['MAILGUN:ACCEPTED', 'MAILGUN:REFUSED']),
    );
  });

  it('reads a multipart post with an attachment as metadata only', async () => {
    const box = await campaignMailbox(server);
    const { coordinator, campaignId, address } = box;
    const form = mailgunForm(address, { 'attachment-count': '1' });
    const boundary = `----cairn${randomBytes(8).toString('hex')}`;
    const parts: Buffer[] = [];
    for (const [name, value] of form) {
      parts.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`),
      );
    }
    const file = Buffer.from('%PDF-1.4 survey map');
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="attachment-1"; filename="map.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    );
    const answer = await post('/v1/mailgun/inbound/json', Buffer.concat(parts), {
      'content-type': `multipart/form-data; boundary=${boundary}`,
    });
    expect(answer.status, await answer.clone().text()).toBe(200);
    // Mail that arrived before the grant is readable once the owner grants it.
    await grantMailAccess(server, box);
    const listed = await ok(coordinator, 'campaign_mail_list', { campaign_id: campaignId }, false);
    const got = await ok(
      coordinator,
      'campaign_mail_get',
      { campaign_id: campaignId, mail_id: listed.mails[0].mail_id },
      false,
    );
    expect(got.attachments).toEqual([expect.objectContaining({ name: 'map.pdf', size: file.length })]);
    expect(got.window.text).toContain('Three curlews');
  });
});

describe('Postal callback', () => {
  it('needs the endpoint key and a signature by the pinned key; stores each Postal message once', async () => {
    const { campaignId, address, token } = await campaignMailbox(server);
    const body = postalBody(address, 9001);
    const headers = { 'content-type': 'application/json', 'x-postal-signature-256': postalSignature(body) };
    expect((await post('/v1/postal/inbound/json', body, headers)).status).toBe(401);
    const path = `/v1/postal/inbound/json?key=${POSTAL_API_KEY}`;
    const accepted = await post(path, body, headers);
    expect(accepted.status, await accepted.clone().text()).toBe(200);
    // Basic auth carries the key as well (Postal sends URL credentials so).
    const basic = `Basic ${Buffer.from(`postal:${POSTAL_API_KEY}`).toString('base64')}`;
    const again = await post('/v1/postal/inbound/json', body, { ...headers, authorization: basic });
    expect((await again.json()).outcomes[0]).toMatchObject({ outcome: 'REFUSED', reason: 'REPLAYED' });

    const tampered = Buffer.from(body.toString('utf8').replace('Golden plovers', 'Golden eagles'));
    expect((await post(path, tampered, headers)).status).toBe(401);
    const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
    const foreign = postalBody(address, 9002);
    expect(
      (
        await post(path, foreign, {
          ...headers,
          'x-postal-signature-256': sign('RSA-SHA256', foreign, otherKey).toString('base64'),
        })
      ).status,
    ).toBe(401);
    const big = Buffer.alloc(2 * 1024 * 1024 + 10, 'a');
    expect(
      (await post(path, big, { ...headers, 'x-postal-signature-256': postalSignature(big) })).status,
    ).toBe(413);

    const view = await ownerApi(server, token, 'GET', `/v1/campaigns/${campaignId}/mail`);
    expect(view.body).toMatchObject({ delivery_state: 'VERIFIED', usage: { messages: 1 } });
  });
});
