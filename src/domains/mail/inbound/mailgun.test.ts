import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { type MailgunFile, mailgunToInbound, verifyMailgun } from './mailgun.ts';

const key = randomBytes(32).toString('hex');
const now = 1_770_920_772;

function signed(timestamp: string, token: string, signingKey = key) {
  const signature = createHmac('sha256', signingKey)
    .update(timestamp + token)
    .digest('hex');
  return { timestamp, token, signature };
}

const token = randomBytes(25).toString('hex'); // 50 characters, like Mailgun's

describe('verifyMailgun', () => {
  it('accepts a genuine signature over a fresh timestamp', () => {
    expect(verifyMailgun(signed(String(now), token), key, now)).toEqual({ ok: true });
    expect(verifyMailgun(signed(String(now - 300), token), key, now)).toEqual({ ok: true });
    expect(verifyMailgun(signed(String(now + 300), token), key, now)).toEqual({ ok: true });
  });

  it('accepts the hex digest in capitals too', () => {
    const f = signed(String(now), token);
    expect(verifyMailgun({ ...f, signature: f.signature.toUpperCase() }, key, now)).toEqual({ ok: true });
  });

  it('refuses a changed timestamp, token or signature', () => {
    const f = signed(String(now), token);
    const bad = { ok: false, reason: 'BAD_SIGNATURE' };
    expect(verifyMailgun({ ...f, timestamp: String(now + 1) }, key, now)).toEqual(bad);
    expect(verifyMailgun({ ...f, token: `${token.slice(0, -1)}x` }, key, now)).toEqual(bad);
    const flipped = (f.signature[0] === 'a' ? 'b' : 'a') + f.signature.slice(1);
    expect(verifyMailgun({ ...f, signature: flipped }, key, now)).toEqual(bad);
  });

  it('refuses a signature made with another key', () => {
    const other = randomBytes(32).toString('hex');
    expect(verifyMailgun(signed(String(now), token, other), key, now)).toEqual({
      ok: false,
      reason: 'BAD_SIGNATURE',
    });
  });

  it('refuses genuine signatures over stale and future timestamps', () => {
    const stale = { ok: false, reason: 'STALE_TIMESTAMP' };
    expect(verifyMailgun(signed(String(now - 301), token), key, now)).toEqual(stale);
    expect(verifyMailgun(signed(String(now + 301), token), key, now)).toEqual(stale);
    expect(verifyMailgun(signed(String(now - 3600), token), key, now)).toEqual(stale);
    expect(verifyMailgun(signed(String(now - 30), token), key, now, 10)).toEqual(stale);
  });

  it('refuses missing and malformed fields as BAD_SIGNATURE', () => {
    const f = signed(String(now), token);
    const bad = { ok: false, reason: 'BAD_SIGNATURE' };
    expect(verifyMailgun({}, key, now)).toEqual(bad);
    expect(verifyMailgun({ token: f.token, signature: f.signature }, key, now)).toEqual(bad);
    expect(verifyMailgun({ timestamp: f.timestamp, signature: f.signature }, key, now)).toEqual(bad);
    expect(verifyMailgun({ timestamp: f.timestamp, token: f.token }, key, now)).toEqual(bad);
    expect(verifyMailgun({ ...f, signature: f.signature.slice(0, 62) }, key, now)).toEqual(bad);
    expect(verifyMailgun({ ...f, signature: `${f.signature}00` }, key, now)).toEqual(bad);
    expect(verifyMailgun({ ...f, signature: `zz${f.signature.slice(2)}` }, key, now)).toEqual(bad);
    expect(verifyMailgun({ ...f, signature: '' }, key, now)).toEqual(bad);
    // A timestamp that only parses as a number somewhere is not one.
    for (const timestamp of [' 1770920772', '1770920772.0', '1.77e9', '-1', '']) {
      expect(verifyMailgun(signed(timestamp, token), key, now)).toEqual(bad);
    }
    expect(verifyMailgun(signed(String(now), ''), key, now)).toEqual(bad);
  });

  it('never verifies with an empty signing key', () => {
    expect(verifyMailgun(signed(String(now), token, ''), '', now)).toEqual({
      ok: false,
      reason: 'BAD_SIGNATURE',
    });
  });
});

function file(field: string, filename: string | null, contentType: string, bytes: Buffer): MailgunFile {
  return {
    field,
    filename,
    contentType,
    size: bytes.length,
    sha256: createHash('sha256').update(bytes).digest('hex'),
  };
}

const parsedFields = (extra: Record<string, string> = {}): Record<string, string> => ({
  ...signed(String(now), token),
  recipient: 'Box-7K2@Mail.Example.org',
  sender: 'bounce+abc@sender.example',
  from: 'Bob <bob@sender.example>',
  subject: 'Quarterly numbers',
  'body-plain': 'Hello there\n\n> quoted',
  'stripped-text': 'Hello there',
  'body-html': '<p>Hello there</p>',
  'message-headers': JSON.stringify([
    ['Received', 'by mxa.mailgun.org'],
    ['To', 'Box <box-7k2@mail.example.org>'],
    ['Date', 'Thu, 13 Nov 2025 10:43:18 +0000'],
    ['Message-Id', '<abc@sender.example>'],
  ]),
  ...extra,
});

describe('mailgunToInbound', () => {
  it('maps the fully parsed fields to a processed mail', () => {
    const mail = mailgunToInbound(parsedFields(), [], 1234);
    expect(mail).toEqual({
      via: 'MAILGUN',
      recipients: ['box-7k2@mail.example.org'],
      envelopeFrom: 'bounce+abc@sender.example',
      raw: null,
      processed: {
        from: 'Bob <bob@sender.example>',
        to: 'Box <box-7k2@mail.example.org>',
        subject: 'Quarterly numbers',
        date: 'Thu, 13 Nov 2025 10:43:18 +0000',
        messageId: '<abc@sender.example>',
        text: 'Hello there\n\n> quoted',
        html: '<p>Hello there</p>',
        attachments: [],
      },
      size: 1234,
      providerDeliveryId: token,
      remote: 'mailgun',
    });
  });

  it('prefers the top-level header fields Mailgun also posts', () => {
    const mail = mailgunToInbound(parsedFields({ 'Message-Id': '<top@sender.example>' }), [], 10);
    expect(mail).toMatchObject({ processed: { messageId: '<top@sender.example>' } });
  });

  it('lowercases, trims, splits and de-duplicates the recipients', () => {
    const mail = mailgunToInbound(
      parsedFields({ recipient: ' Box-A@Mail.Example.org , box-b@mail.example.org,BOX-A@mail.example.org,' }),
      [],
      10,
    );
    expect(mail).toMatchObject({ recipients: ['box-a@mail.example.org', 'box-b@mail.example.org'] });
  });

  it('takes body-mime as the raw message', () => {
    const mime = 'From: bob@sender.example\r\nTo: box@mail.example.org\r\nSubject: hi\r\n\r\nhé\r\n';
    const fields = { ...signed(String(now), token), recipient: 'box@mail.example.org', 'body-mime': mime };
    const mail = mailgunToInbound(fields, [], 500);
    expect(mail).toMatchObject({ via: 'MAILGUN', processed: null, size: 500, providerDeliveryId: token });
    expect('raw' in mail && mail.raw?.equals(Buffer.from(mime, 'utf8'))).toBe(true);
  });

  it('reduces attachments to their metadata, in attachment order', () => {
    const pdf = Buffer.from('%PDF-1.4 fake');
    const png = randomBytes(100);
    const files = [
      file('attachment-2', 'chart.png', 'image/png', png),
      file('attachment-1', 'a.pdf', '', pdf),
    ];
    const mail = mailgunToInbound(parsedFields({ 'attachment-count': '2' }), files, 5000);
    expect(mail).toMatchObject({
      processed: {
        attachments: [
          {
            name: 'a.pdf',
            contentType: 'application/octet-stream',
            size: pdf.length,
            sha256: createHash('sha256').update(pdf).digest('hex'),
          },
          {
            name: 'chart.png',
            contentType: 'image/png',
            size: 100,
            sha256: createHash('sha256').update(png).digest('hex'),
          },
        ],
      },
    });
  });

  it('refuses malformed posts as MALFORMED', () => {
    const pdf = file('attachment-1', 'a.pdf', 'application/pdf', Buffer.from('x'));
    const cases: Array<[Record<string, string>, MailgunFile[], number]> = [
      [parsedFields({ recipient: '' }), [], 10],
      [parsedFields({ recipient: ' , ' }), [], 10],
      [parsedFields({ token: '' }), [], 10],
      [parsedFields({ 'message-headers': 'not json' }), [], 10],
      [parsedFields({ 'message-headers': '{"To":"x"}' }), [], 10],
      [parsedFields({ 'message-headers': '[["To"]]' }), [], 10],
      [parsedFields({ 'attachment-count': '2' }), [pdf], 10],
      [parsedFields({ 'attachment-count': 'two' }), [pdf], 10],
      [parsedFields({ 'attachment-count': '1' }), [{ ...pdf, field: 'attachment-2' }], 10],
      [parsedFields({ 'attachment-count': '1' }), [{ ...pdf, field: 'upload' }], 10],
      [parsedFields({ 'attachment-count': '1' }), [{ ...pdf, sha256: 'nope' }], 10],
      [parsedFields({ 'body-mime': '' }), [], 10],
      [parsedFields(), [], -1],
      [parsedFields(), [], 1.5],
    ];
    for (const [fields, files, size] of cases) {
      const result = mailgunToInbound(fields, files, size);
      expect(result).toMatchObject({ refusal: 'MALFORMED' });
      expect((result as { detail: string }).detail.length).toBeGreaterThan(0);
    }
    const { recipient: _, ...withoutRecipient } = parsedFields();
    expect(mailgunToInbound(withoutRecipient, [], 10)).toMatchObject({ refusal: 'MALFORMED' });
  });
});
