import { createHmac, randomBytes } from 'node:crypto';
import nodemailer from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, key, type Member, newMember, ok, refused } from '../support/campaigns.ts';
import { csrfOf, errorOf, type Page, Visitor } from '../support/console-visitor.ts';
import { uniqueEmail } from '../support/factories.ts';
import { freePort, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 18 items 1 and 4 (console): a campaign's mailbox page for its owner of record. The
 * address with the check-mail instruction and the delivery state; every delivery attempt (over
 * the built-in SMTP receiver and a Mailgun callback here), refusals with their reason; access
 * requests approved or declined from a form and grants revoked, as the agent then sees them;
 * and the page is nobody else's.
 */

const SIGNING_KEY = `key-${randomBytes(16).toString('hex')}`;
const PASSWORD = 'correct horse battery staple';

let server: TestServer;
let smtpPort: number;
beforeAll(async () => {
  smtpPort = await freePort();
  server = await startTestServer({
    env: {
      CAIRN_TRUST_PROXY: 'true',
      CAIRN_MAIL_DOMAIN: 'mail.cairn.test',
      CAIRN_SMTP_PORT: String(smtpPort),
      CAIRN_MAILGUN_SIGNING_KEY: SIGNING_KEY,
    },
  });
});
afterAll(async () => {
  await server?.close();
});

/** A signed-in owner, their agent, and a campaign of theirs with its mailbox address. */
async function ownerWithMailbox(members: Member[] = []) {
  const email = uniqueEmail();
  await server.app.services.identity.addOwner(email, PASSWORD);
  const visitor = new Visitor(server.url);
  expect((await visitor.signIn(email)).status).toBe(303);
  const agent = await newMember(server, email);
  const campaignId = await campaignWith(agent, members);
  const address = (await ok(agent, 'campaign_mail_address', { campaign_id: campaignId }, false))
    .address as string;
  return { visitor, agent, campaignId, address, path: `/console/campaigns/${campaignId}/mail` };
}

/** One panel of a page (`<section class="panel" id="…">`), or '' when it is not there. */
function panel(page: Page, id: string): string {
  const m = new RegExp(`<section class="panel" id="${id}">([\\s\\S]*?)</section>`).exec(page.text);
  return m?.[1] ?? '';
}

const statusOf = async (m: Member, campaignId: string) =>
  (await ok(m, 'campaign_mail_access_status', { campaign_id: campaignId }, false)).status as string;

const smtp = () =>
  nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true });

function mailgunForm(recipient: string) {
  const at = Math.floor(Date.now() / 1000);
  const token = randomBytes(25).toString('hex');
  return new URLSearchParams({
    timestamp: String(at),
    token,
    signature: createHmac('sha256', SIGNING_KEY).update(`${at}${token}`).digest('hex'),
    recipient,
    sender: 'bob@example.org',
    from: 'Bob <bob@example.org>',
    subject: 'Survey replies',
    'body-plain': 'Three curlews on the north ridge.',
    'Message-Id': `<${key()}@example.org>`,
  });
}

const postMailgun = (form: URLSearchParams) =>
  fetch(`${server.url}/v1/mailgun/inbound/json`, {
    method: 'POST',
    body: form.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

/** The agent asks to read the campaign's mail; answers the request id. */
async function ask(m: Member, campaignId: string, reason = 'The survey replies arrive by mail.') {
  return (await ok(m, 'campaign_mail_request_access', { campaign_id: campaignId, reason }))
    .request_id as string;
}

describe('the mailbox page', () => {
  it('shows the address to send a check mail to, UNVERIFIED and READY, linked from the campaign page', async () => {
    const { visitor, campaignId, address, path } = await ownerWithMailbox();
    const campaign = await visitor.get(`/console/campaigns/${campaignId}`);
    expect(campaign.text).toContain(`href="${path}"`);

    const page = await visitor.get(path);
    expect(page.status).toBe(200);
    const box = panel(page, 'address');
    expect(box).toContain('Send a check mail to');
    expect(box).toContain(`<code class="secret" id="mail-address">${address}</code>`);
    expect(box).toContain('<span class="badge bad" id="delivery-state">UNVERIFIED</span>');
    expect(box).toContain('0 of 1,000 messages · 0 B of 20 MiB');
    expect(page.text).toContain('<span class="badge on" id="mail-status">READY</span>');
    expect(panel(page, 'attempts')).toContain('None yet');
    expect(panel(page, 'access-requests')).toContain('None waiting');
    // The page loads no script at all, and carries the console's policy.
    expect(page.text).not.toMatch(/<script/i);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
  });

  it('after a delivery over SMTP shows VERIFIED and the attempt, its sender escaped as text', async () => {
    const { visitor, address, path } = await ownerWithMailbox();
    const messageId = `<${key()}@example.org>`;
    const sent = await smtp().sendMail({
      from: '"Eve <b>bold</b>" <eve@example.org>',
      to: address,
      subject: '<script>alert(1)</script> Lapwings',
      text: 'Lapwings display over the wet meadow.',
      messageId,
    });
    expect(sent.accepted).toEqual([address]);

    const page = await visitor.get(path);
    expect(panel(page, 'address')).toContain('<span class="badge on" id="delivery-state">VERIFIED</span>');
    expect(panel(page, 'address')).toMatch(/verified <time datetime="/);
    expect(panel(page, 'address')).toContain('1 of 1,000 messages');
    const attempts = panel(page, 'attempts');
    expect(attempts).toContain('<td>SMTP<p class="hint">from ');
    expect(attempts).toContain('<span class="badge on">ACCEPTED</span>');
    expect(attempts).toContain(address);
    expect(attempts).toContain('&lt;script&gt;alert(1)&lt;/script&gt; Lapwings');
    expect(attempts).toContain('Eve &lt;b&gt;bold&lt;/b&gt;');
    expect(attempts).toContain(`<dt>Message-ID</dt><dd>${messageId.slice(1, -1)}</dd>`);
    expect(page.text).not.toMatch(/<script|<b>/i);
  });

  it('lists a refused attempt with its reason beside the accepted one it repeated', async () => {
    const { visitor, address, path } = await ownerWithMailbox();
    const form = mailgunForm(address);
    expect((await postMailgun(form)).status).toBe(200);
    // The provider sends the same signed delivery again: recorded, refused, not stored twice.
    const replay = await postMailgun(form);
    expect((await replay.json()).outcomes[0]).toMatchObject({ outcome: 'REFUSED', reason: 'REPLAYED' });

    const attempts = panel(await visitor.get(path), 'attempts');
    const rows = attempts.split('<tr id="attempt-').slice(1);
    expect(rows).toHaveLength(2);
    // Newest first: the refusal, then the delivery it repeated.
    expect(rows[0]).toContain('MAILGUN');
    expect(rows[0]).toContain('<span class="badge bad">REFUSED</span>');
    expect(rows[0]).toContain('<code>REPLAYED</code> The provider sent a delivery it had sent before');
    expect(rows[0]).toContain('not read: nothing was stored');
    expect(rows[1]).toContain('<span class="badge on">ACCEPTED</span>');
    expect(rows[1]).toContain('Survey replies');
    expect(panel(await visitor.get(path), 'address')).toContain('1 of 1,000 messages');
  });

  it('pages through the attempts, 50 at a time, newest first', async () => {
    const { visitor, campaignId, address, path } = await ownerWithMailbox();
    const raw = Buffer.from(
      `From: alice@example.org\r\nTo: ${address}\r\nSubject: Again\r\nMessage-ID: <${key()}@example.org>\r\n\r\nSame text.\r\n`,
    );
    for (let i = 0; i < 51; i++) {
      await server.app.services.mail.deliver({
        via: 'SMTP',
        recipients: [address],
        envelopeFrom: 'alice@example.org',
        raw,
        processed: null,
        size: raw.length,
        providerDeliveryId: null,
        remote: '127.0.0.1',
      });
    }
    const first = await visitor.get(path);
    const firstRows = panel(first, 'attempts').split('<tr id="attempt-').slice(1);
    expect(firstRows).toHaveLength(50);
    expect(firstRows.every((r) => r.includes('DUPLICATE'))).toBe(true);
    const older = /href="([^"]*\?attempts_before=mat_[0-9A-Za-z]+)#attempts"/.exec(panel(first, 'attempts'));
    expect(older?.[1]).toMatch(new RegExp(`^/console/campaigns/${campaignId}/mail\\?`));

    const second = await visitor.get(older![1]!);
    const secondRows = panel(second, 'attempts').split('<tr id="attempt-').slice(1);
    expect(secondRows).toHaveLength(1);
    expect(secondRows[0]).toContain('ACCEPTED');
    expect(panel(second, 'attempts')).toContain('← Newest attempts');
    expect(panel(second, 'attempts')).not.toContain('Older attempts');
  });

  it('approves and declines requests from the forms; each agent sees where it stands', async () => {
    const outsider = await newMember(server);
    const { visitor, agent, campaignId, path } = await ownerWithMailbox([outsider]);
    const mine = await ask(agent, campaignId);
    const theirs = await ask(outsider, campaignId, 'I want <i>everything</i>.');

    const page = await visitor.get(path);
    const requests = panel(page, 'access-requests');
    expect(requests).toContain(`<tr id="request-${mine}">`);
    expect(requests).toContain(`<tr id="request-${theirs}">`);
    expect(requests).toContain('I want &lt;i&gt;everything&lt;/i&gt;.');
    expect(requests).toContain(outsider.agentId);

    const approved = await visitor.post(`${path}/requests/${mine}`, {
      csrf: csrfOf(page.text),
      decision: 'approve',
    });
    expect([approved.status, approved.location]).toEqual([303, `${path}?done=approved`]);
    const declined = await visitor.post(`${path}/requests/${theirs}`, {
      csrf: csrfOf(page.text),
      decision: 'decline',
    });
    expect([declined.status, declined.location]).toEqual([303, `${path}?done=declined`]);

    expect(await statusOf(agent, campaignId)).toBe('GRANTED');
    await ok(agent, 'campaign_mail_list', { campaign_id: campaignId }, false);
    expect(await statusOf(outsider, campaignId)).toBe('DECLINED');
    const denied = await refused(outsider, 'campaign_mail_list', { campaign_id: campaignId }, false);
    expect(denied).toMatchObject({ code: 'MAIL_ACCESS_REQUIRED', details: { access_status: 'DECLINED' } });

    const after = await visitor.get(`${path}?done=approved`);
    expect(after.text).toContain('Approved. The agent can read the campaign’s mail now');
    expect(panel(after, 'access-requests')).toContain('None waiting');
    expect(panel(after, 'grants')).toContain(`<tr id="grant-${agent.agentId}">`);
    expect(panel(after, 'access-history')).toContain(`<tr id="ended-${outsider.agentId}">`);
    expect(panel(after, 'access-history')).toContain('DECLINED');

    // Deciding it again (an old page, a second tab) changes nothing and says why.
    const again = await visitor.post(`${path}/requests/${theirs}`, {
      csrf: csrfOf(page.text),
      decision: 'approve',
    });
    expect(again.status).toBe(409);
    expect(errorOf(again.text)).toContain('already decided (DECLINED)');
    expect(await statusOf(outsider, campaignId)).toBe('DECLINED');
  });

  it('revokes a grant at once', async () => {
    const { visitor, agent, campaignId, path } = await ownerWithMailbox();
    const requestId = await ask(agent, campaignId);
    await visitor.submit(path, `${path}/requests/${requestId}`, { decision: 'approve' });
    expect(await statusOf(agent, campaignId)).toBe('GRANTED');

    const revoked = await visitor.submit(path, `${path}/grants/${agent.agentId}/revoke`, {});
    expect([revoked.status, revoked.location]).toEqual([303, `${path}?done=revoked`]);
    expect(await statusOf(agent, campaignId)).toBe('REVOKED');
    const denied = await refused(agent, 'campaign_mail_list', { campaign_id: campaignId }, false);
    expect(denied.details).toMatchObject({ access_status: 'REVOKED' });

    const page = await visitor.get(revoked.location!);
    expect(page.text).toContain('Revoked. The agent’s next read or wait is refused');
    expect(panel(page, 'grants')).not.toContain(agent.agentId);
    expect(panel(page, 'access-history')).toContain('REVOKED');
    // Nothing left to revoke: said on the page.
    const twice = await visitor.submit(path, `${path}/grants/${agent.agentId}/revoke`, {});
    expect(twice.status).toBe(409);
    expect(errorOf(twice.text)).toContain('holds no grant to revoke');
  });

  it("answers another owner with the console's not-found page, and lets them decide nothing", async () => {
    const { agent, campaignId, path } = await ownerWithMailbox();
    const requestId = await ask(agent, campaignId);
    const other = new Visitor(server.url);
    const email = uniqueEmail();
    await server.app.services.identity.addOwner(email, PASSWORD);
    await other.signIn(email);

    const campaignPage = await other.get(`/console/campaigns/${campaignId}`);
    const mailPage = await other.get(path);
    expect([campaignPage.status, mailPage.status]).toEqual([404, 404]);
    expect(errorOf(mailPage.text)).toBe(errorOf(campaignPage.text));
    expect(mailPage.text).not.toContain('mail.cairn.test');

    const decided = await other.submit('/console', `${path}/requests/${requestId}`, { decision: 'approve' });
    expect(decided.status).toBe(404);
    const revoke = await other.submit('/console', `${path}/grants/${agent.agentId}/revoke`, {});
    expect(revoke.status).toBe(404);
    expect(await statusOf(agent, campaignId)).toBe('REQUESTED');

    // Signed out, the page sends the browser to sign in and back.
    const anonymous = await new Visitor(server.url).get(path);
    expect(anonymous.status).toBe(303);
    expect(anonymous.location).toBe(`/console/signin?next=${encodeURIComponent(path)}`);
  });

  it('refuses a decision or a revocation without the form’s CSRF token', async () => {
    const { visitor, agent, campaignId, path } = await ownerWithMailbox();
    const requestId = await ask(agent, campaignId);
    const bare = await visitor.post(`${path}/requests/${requestId}`, { decision: 'approve' });
    expect(bare.status).toBe(403);
    const forged = await visitor.post(`${path}/requests/${requestId}`, {
      csrf: 'x'.repeat(43),
      decision: 'approve',
    });
    expect(forged.status).toBe(403);
    expect(await statusOf(agent, campaignId)).toBe('REQUESTED');

    await visitor.submit(path, `${path}/requests/${requestId}`, { decision: 'approve' });
    const revoke = await visitor.post(`${path}/grants/${agent.agentId}/revoke`, {});
    expect(revoke.status).toBe(403);
    expect(await statusOf(agent, campaignId)).toBe('GRANTED');
  });
});

/** A mail handed to deliverMail, as every way in does; answers its outcome and size. */
async function deliverTo(address: string, subject: string, from = 'Alice <alice@example.org>') {
  const raw = Buffer.from(
    `From: ${from}\r\nTo: ${address}\r\nSubject: ${subject}\r\nMessage-ID: <${key()}@example.org>\r\n\r\n${subject}: ${key()}\r\n`,
  );
  const [outcome] = await server.app.services.mail.deliver({
    via: 'SMTP',
    recipients: [address],
    envelopeFrom: 'alice@example.org',
    raw,
    processed: null,
    size: raw.length,
    providerDeliveryId: null,
    remote: '127.0.0.1',
  });
  return { ...outcome!, size: raw.length };
}

/** Posts a form whose fields may repeat (several boxes ticked), as a browser does. */
async function postFields(visitor: Visitor, path: string, fields: Array<[string, string]>) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: {
      'x-forwarded-for': visitor.address,
      cookie: [...visitor.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(fields).toString(),
    redirect: 'manual',
  });
  return { status: res.status, location: res.headers.get('location'), text: await res.text() };
}

const storedRows = (page: Page) => panel(page, 'stored-mail').split('<tr id="mail-').slice(1);

describe('making room on the mailbox page', () => {
  it('lists the stored mail, deletes the ticked ones and says how much room that made', async () => {
    const { visitor, campaignId, address, path } = await ownerWithMailbox();
    await server.database.db.execute(
      (await import('drizzle-orm'))
        .sql`update mailboxes set message_limit = 3 where campaign_id = ${campaignId}`,
    );
    const one = await deliverTo(address, 'Ridge count');
    const two = await deliverTo(
      address,
      '<img src=x onerror=alert(1)> Marsh count',
      '"Mallory <i>" <m@example.org>',
    );
    const three = await deliverTo(address, 'Moor count');
    expect((await deliverTo(address, 'One too many')).reason).toBe('MAILBOX_FULL');

    const page = await visitor.get(path);
    expect(panel(page, 'address')).toContain('<a href="#stored-mail">delete stored mail</a>');
    const rows = storedRows(page);
    expect(rows.map((r) => r.slice(0, r.indexOf('"')))).toEqual([three.mail_id, two.mail_id, one.mail_id]);
    expect(rows[1]).toContain(`<input type="checkbox" name="mail_ids" value="${two.mail_id}"`);
    expect(rows[1]).toContain('&lt;img src=x onerror=alert(1)&gt; Marsh count');
    expect(rows[1]).toContain('Mallory &lt;i&gt;');
    expect(page.text).not.toMatch(/<img|<i>/i);
    expect(panel(page, 'stored-mail')).toContain(`action="${path}/messages/delete"`);

    const done = await postFields(visitor, `${path}/messages/delete`, [
      ['csrf', csrfOf(page.text)],
      ['mail_ids', one.mail_id!],
      ['mail_ids', two.mail_id!],
    ]);
    expect(done.status).toBe(303);
    expect(done.location).toBe(
      `${path}?done=deleted&deleted=2&freed=${one.size + two.size}&kept=0#stored-mail`,
    );
    const after = await visitor.get(done.location!.replace(/#.*$/, ''));
    expect(after.text).toContain(
      `Deleted 2 mails: ${one.size + two.size} B freed. The mailbox has room: new mail is taken again.`,
    );
    expect(storedRows(after).map((r) => r.slice(0, r.indexOf('"')))).toEqual([three.mail_id]);
    expect(panel(after, 'address')).toContain('1 of 3 messages');
    expect(panel(after, 'address')).not.toContain('FULL');
    // The attempts keep their history, and say the mail is gone.
    expect(panel(after, 'attempts')).toContain(`deleted since (<code>${one.mail_id}</code>)`);
    expect((await deliverTo(address, 'Room again')).outcome).toBe('ACCEPTED');

    // Nothing ticked: said on the page, nothing deleted.
    const none = await postFields(visitor, `${path}/messages/delete`, [['csrf', csrfOf(after.text)]]);
    expect(none.status).toBe(422);
    expect(errorOf(none.text)).toBe('Tick at least one mail to delete.');
    // A mail already gone (an old page, a second tab): said on the page, the rest kept.
    const stale = await postFields(visitor, `${path}/messages/delete`, [
      ['csrf', csrfOf(after.text)],
      ['mail_ids', three.mail_id!],
      ['mail_ids', one.mail_id!],
    ]);
    expect(stale.status).toBe(404);
    expect(errorOf(stale.text)).toContain(`No mail ${one.mail_id} in this campaign: nothing was deleted.`);
    expect(storedRows(await visitor.get(path))).toHaveLength(2);
  });

  it('pages through the stored mail, 50 at a time, and deletes from an older page', async () => {
    const { visitor, campaignId, address, path } = await ownerWithMailbox();
    const ids: string[] = [];
    for (let i = 0; i < 51; i++) ids.push((await deliverTo(address, `Count ${i}`)).mail_id!);
    const first = await visitor.get(path);
    expect(storedRows(first)).toHaveLength(50);
    expect(storedRows(first)[0]).toContain(ids[50]);
    const older = /href="([^"]*\?mail_before=mail_[0-9A-Za-z]+)#stored-mail"/.exec(
      panel(first, 'stored-mail'),
    );
    expect(older?.[1]).toMatch(new RegExp(`^/console/campaigns/${campaignId}/mail\\?`));

    const second = await visitor.get(older![1]!);
    expect(storedRows(second).map((r) => r.slice(0, r.indexOf('"')))).toEqual([ids[0]]);
    expect(panel(second, 'stored-mail')).toContain('← Newest mail');
    expect(panel(second, 'stored-mail')).not.toContain('Older mail');
    const done = await postFields(visitor, `${path}/messages/delete`, [
      ['csrf', csrfOf(second.text)],
      ['mail_ids', ids[0]!],
      ['mail_before', /mail_before=([^&#"]+)/.exec(older![1]!)![1]!],
    ]);
    expect(done.status).toBe(303);
    expect(done.location).toMatch(/&mail_before=mail_[0-9A-Za-z]+#stored-mail$/);
    const back = await visitor.get(done.location!.replace(/#.*$/, ''));
    expect(back.text).toContain('Deleted 1 mail: ');
    expect(panel(back, 'stored-mail')).toContain('No older mail.');
  });

  it('refuses a deletion without the form’s CSRF token, and another owner’s', async () => {
    const { visitor, address, path } = await ownerWithMailbox();
    const mail = await deliverTo(address, 'Keep me');
    const bare = await postFields(visitor, `${path}/messages/delete`, [['mail_ids', mail.mail_id!]]);
    expect(bare.status).toBe(403);
    const forged = await postFields(visitor, `${path}/messages/delete`, [
      ['csrf', 'x'.repeat(43)],
      ['mail_ids', mail.mail_id!],
    ]);
    expect(forged.status).toBe(403);

    const other = new Visitor(server.url);
    const email = uniqueEmail();
    await server.app.services.identity.addOwner(email, PASSWORD);
    await other.signIn(email);
    const theirs = await postFields(other, `${path}/messages/delete`, [
      ['csrf', csrfOf((await other.get('/console')).text)],
      ['mail_ids', mail.mail_id!],
    ]);
    expect(theirs.status).toBe(404);
    expect(theirs.text).not.toContain('Keep me');

    const rows = storedRows(await visitor.get(path));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain('Keep me');
  });
});
