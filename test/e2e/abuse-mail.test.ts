import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { key, type Member, newMember, ok } from '../support/campaigns.ts';
import { callTool } from '../support/factories.ts';
import { type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { type CampaignMailbox, grantedMailbox, smtpSender } from '../support/mail.ts';
import { ownerApi, ownerTokenOf } from '../support/owner-api.ts';
import { freePort, startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 40, standing abuse suite: the depth bomb through the doors that are not fetch_text. An
 * anonymous sender mails 10 KB of 2,000 unclosed `<div>`s to a campaign address from two
 * connections at once (before the depth bound each held a parser thread 30 s, and another
 * owner's reads were DEGRADED_MODE for minutes), and an owner imports the same page twice at
 * once, while another owner's agent reads. That read succeeds; every bomb is taken and read in
 * full, not cut off.
 */

const bomb = `<html><body>${'<div>'.repeat(2_000)}<p>Nested note.</p></body></html>`;

let site: FixtureSite;
let server: TestServer;
let port: number;
let box: CampaignMailbox;
let victim: Member;
beforeAll(async () => {
  site = await startFixtureSite();
  port = await freePort();
  server = await startTestServer({
    env: {
      ...site.env,
      CAIRN_MAIL_DOMAIN: 'mail.cairn.test',
      CAIRN_SMTP_PORT: String(port),
      CAIRN_PARSER_JOBS: '2',
      CAIRN_PARSER_QUEUE: '4',
    },
  });
  box = await grantedMailbox(server);
  victim = await newMember(server);
});
afterAll(async () => {
  await server?.close();
  await site?.close();
});

describe('depth bombs by mail and by import', () => {
  it("are read in full, quickly, while another owner's read succeeds", async () => {
    const mail = (sender: number, n: number) =>
      smtpSender(port).sendMail({
        from: `Sender ${sender} <s${sender}@example.org>`,
        to: box.address,
        subject: `Bomb ${sender}.${n}`,
        html: bomb,
        messageId: `<${key()}@example.org>`,
      });
    // Two connections, three messages each, one after another on each.
    const mailed = Promise.all(
      [1, 2].map(async (sender) => {
        const sent = [];
        for (let n = 0; n < 3; n++) sent.push(await mail(sender, n));
        return sent;
      }),
    );
    mailed.catch(() => {});
    const token = await ownerTokenOf(server, box.coordinator);
    const imports = Promise.all(
      [0, 1].map(() =>
        fetch(`${server.url}/v1/research/imports`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ format: 'html', text: bomb }),
        }).then(async (res) => ({ status: res.status, body: (await res.json()) as Record<string, unknown> })),
      ),
    );
    imports.catch(() => {});

    const read = await callTool(victim.client, 'fetch_text', {
      url: `${site.origin}/article`,
      declared_purpose: 'Abuse test.',
    });
    expect(read.isError, JSON.stringify(read.body)).toBe(false);

    // Every message was taken (250), none deferred with a 451.
    for (const sent of (await mailed).flat()) expect(sent.accepted).toEqual([box.address]);
    const listed = await ok(box.coordinator, 'campaign_mail_list', { campaign_id: box.campaignId }, false);
    const bombs = (listed.mails as Array<{ mail_id: string; subject: string }>).filter((m) =>
      m.subject.startsWith('Bomb'),
    );
    expect(bombs).toHaveLength(6);
    const one = await ok(
      box.coordinator,
      'campaign_mail_get',
      { campaign_id: box.campaignId, mail_id: bombs[0]!.mail_id },
      false,
    );
    expect(one.window.text).toContain('Nested note.');

    // Both imports are stored with their text (or the second told its owner's share is in use).
    for (const { status, body } of await imports) {
      if (status === 503) {
        expect(body.error).toMatchObject({ code: 'DEGRADED_MODE', details: { share: 'OWNER' } });
        continue;
      }
      expect(status, JSON.stringify(body)).toBe(201);
      expect(body.transformations).toContain('HTML_NESTING_FLATTENED');
      expect(body.total_chars).toBeGreaterThan(0);
    }
  });
});

describe('mail the parser cannot read now', () => {
  let busy: TestServer;
  let busyPort: number;
  beforeAll(async () => {
    busyPort = await freePort();
    // One parser thread and no line: while another owner's read holds the thread, a mail's parse
    // finds the parser full.
    busy = await startTestServer({
      env: {
        ...site.env,
        CAIRN_MAIL_DOMAIN: 'mail.cairn.test',
        CAIRN_SMTP_PORT: String(busyPort),
        CAIRN_PARSER_JOBS: '1',
        CAIRN_PARSER_QUEUE: '0',
      },
    });
  });
  afterAll(async () => {
    await busy?.close();
  });

  it('is taken (250, not 451), read once the parser is free, and its attempt tells the owner each step', async () => {
    const mailbox = await grantedMailbox(busy);
    const reader = await newMember(busy);
    const idle = await ok(
      mailbox.coordinator,
      'campaign_mail_wait',
      { campaign_id: mailbox.campaignId, timeout_seconds: 1 },
      false,
    );
    // Another owner's costly read takes the only thread for seconds.
    const heavy = callTool(reader.client, 'fetch_text', {
      url: `${site.origin}/heavy?n=deferred`,
      declared_purpose: 'Abuse test.',
    });
    heavy.catch(() => {});
    // Time for the read to fetch its page and start parsing it (the parse itself takes seconds).
    await new Promise((r) => setTimeout(r, 1_000));
    const sent = await smtpSender(busyPort).sendMail({
      from: 'Walker <walker@example.org>',
      to: mailbox.address,
      subject: 'Read me later',
      text: 'The cairn on the east ridge has fallen.',
      messageId: `<${key()}@example.org>`,
    });
    expect(sent.accepted).toEqual([mailbox.address]);
    const attemptsOf = async () =>
      (await ownerApi(busy, mailbox.token, 'GET', `/v1/campaigns/${mailbox.campaignId}/mail`)).body
        .attempts as Array<{ attempt_id: string; outcome: string; mail_id: string | null }>;
    const [deferred] = await attemptsOf();
    expect(deferred).toMatchObject({ outcome: 'DEFERRED', mail_id: null });
    // Nothing to read yet: agents see mail once it has been read.
    const none = await ok(
      mailbox.coordinator,
      'campaign_mail_list',
      { campaign_id: mailbox.campaignId },
      false,
    );
    expect(none.mails).toEqual([]);

    await heavy;
    // Woken once it is read: the next try comes 5 s after it arrived (30 s later should the
    // thread still be busy then), so wait up to two waits' worth.
    let cursor = idle.cursor;
    let woken: { mails: Array<{ subject: string; mail_id: string }>; cursor: string } = { mails: [], cursor };
    for (let i = 0; i < 2 && woken.mails.length === 0; i++) {
      woken = (await ok(
        mailbox.coordinator,
        'campaign_mail_wait',
        { campaign_id: mailbox.campaignId, after_cursor: cursor, timeout_seconds: 25 },
        false,
      )) as typeof woken;
      cursor = woken.cursor;
    }
    expect(woken.mails.map((m) => m.subject)).toEqual(['Read me later']);
    const mailId = woken.mails[0]!.mail_id;
    const got = await ok(
      mailbox.coordinator,
      'campaign_mail_get',
      { campaign_id: mailbox.campaignId, mail_id: mailId },
      false,
    );
    expect(got.window.text).toContain('The cairn on the east ridge has fallen.');
    // The same attempt, now with its outcome: one attempt for one delivery.
    const after = await attemptsOf();
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({
      attempt_id: deferred!.attempt_id,
      outcome: 'ACCEPTED',
      mail_id: mailId,
    });
  }, 90_000);
});
