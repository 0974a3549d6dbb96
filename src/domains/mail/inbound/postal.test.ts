import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { postalPublicKey, postalToInbound, verifyPostal } from './postal.ts';

const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const bareDer = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
const pkcs1Pem = publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();

/** As Postal signs: base64 (no line breaks) of RSA-SHA256 over the exact body. */
const sign256 = (body: Buffer, key = privateKey) => sign('sha256', body, key).toString('base64');

/** Base64 as Ruby's Base64.encode64 writes it: a newline every 60 characters and at the end. */
const encode64 = (bytes: Buffer) =>
  `${bytes
    .toString('base64')
    .match(/.{1,60}/g)!
    .join('\n')}\n`;

const attachmentBytes = Buffer.from('Hello world! '.repeat(20));

const processed = {
  id: 12345,
  rcpt_to: 'Box-7K2@Mail.Example.org',
  mail_from: 'test@example.com',
  token: 'rtmuzogUauKN',
  subject: 'Re: Welcome',
  message_id: '81026759-68fb-4872-8c97-6dd2901cb33a@amrp.appmail.io',
  timestamp: 1478169798.924355,
  size: '822',
  spam_status: 'NotSpam',
  bounce: false,
  received_with_ssl: true,
  to: 'box-7k2@mail.example.org',
  cc: null,
  from: 'John Doe <test@example.com>',
  date: 'Thu, 03 Nov 2016 10:43:18 +0000',
  in_reply_to: null,
  references: null,
  plain_body: 'Hello there!',
  html_body: '<p>Hello there!</p>',
  auto_submitted: null,
  attachment_quantity: 1,
  reply_to: null,
  attachments: [
    { filename: 'test.txt', content_type: 'text/plain', size: 260, data: encode64(attachmentBytes) },
  ],
};

describe('verifyPostal', () => {
  const body = Buffer.from(JSON.stringify(processed));

  it('accepts a genuine X-Postal-Signature-256 with the key as PEM (or one line with \\n), bare base64 DER, DKIM record or PKCS#1', () => {
    const signature = sign256(body);
    for (const key of [
      pem,
      pem.trim().replace(/\n/g, '\\n'),
      bareDer,
      `  ${bareDer}\n`,
      `v=DKIM1; t=s; h=sha256; p=${bareDer};`,
      pkcs1Pem,
    ]) {
      expect(verifyPostal(body, signature, key)).toEqual({ ok: true });
    }
  });

  it('refuses a body changed in any byte, even one that parses to the same JSON', () => {
    const signature = sign256(body);
    const bad = { ok: false, reason: 'BAD_SIGNATURE' };
    const changed = Buffer.from(body);
    changed[20] = changed[20]! ^ 1;
    expect(verifyPostal(changed, signature, pem)).toEqual(bad);
    expect(verifyPostal(Buffer.from(JSON.stringify(processed, null, 1)), signature, pem)).toEqual(bad);
    expect(verifyPostal(Buffer.concat([body, Buffer.from('\n')]), signature, pem)).toEqual(bad);
  });

  it('refuses a changed, missing or malformed signature', () => {
    const signature = sign256(body);
    const bad = { ok: false, reason: 'BAD_SIGNATURE' };
    const bytes = Buffer.from(signature, 'base64');
    bytes[0] = bytes[0]! ^ 1;
    expect(verifyPostal(body, bytes.toString('base64'), pem)).toEqual(bad);
    expect(verifyPostal(body, undefined, pem)).toEqual(bad);
    expect(verifyPostal(body, '', pem)).toEqual(bad);
    expect(verifyPostal(body, 'not base64!', pem)).toEqual(bad);
    expect(verifyPostal(body, signature.slice(0, -4), pem)).toEqual(bad);
    expect(verifyPostal(body, `${signature}, ${signature}`, pem)).toEqual(bad);
  });

  it('refuses a signature made with another key', () => {
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(verifyPostal(body, sign256(body, other.privateKey), pem)).toEqual({
      ok: false,
      reason: 'BAD_SIGNATURE',
    });
  });

  it('refuses the legacy SHA-1 signature', () => {
    const sha1 = sign('sha1', body, privateKey).toString('base64');
    expect(verifyPostal(body, sha1, pem)).toEqual({ ok: false, reason: 'BAD_SIGNATURE' });
  });

  it('throws on a configured key it cannot use', () => {
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({
      type: 'spki',
      format: 'pem',
    });
    for (const key of [privatePem, ec.toString(), 'not a key', '', 'QUJD']) {
      expect(() => verifyPostal(body, sign256(body), key)).toThrow();
      expect(() => postalPublicKey(key)).toThrow();
    }
  });
});

describe('postalToInbound', () => {
  it('maps the processed payload and reduces attachments to metadata', () => {
    const mail = postalToInbound(processed);
    expect(mail).toEqual({
      via: 'POSTAL',
      recipients: ['box-7k2@mail.example.org'],
      envelopeFrom: 'test@example.com',
      raw: null,
      processed: {
        from: 'John Doe <test@example.com>',
        to: 'box-7k2@mail.example.org',
        subject: 'Re: Welcome',
        date: 'Thu, 03 Nov 2016 10:43:18 +0000',
        messageId: '81026759-68fb-4872-8c97-6dd2901cb33a@amrp.appmail.io',
        text: 'Hello there!',
        html: '<p>Hello there!</p>',
        attachments: [
          {
            name: 'test.txt',
            contentType: 'text/plain',
            size: 260,
            sha256: createHash('sha256').update(attachmentBytes).digest('hex'),
          },
        ],
      },
      size: 822,
      providerDeliveryId: '12345:rtmuzogUauKN',
      remote: 'postal',
    });
    // The attachment's bytes are gone.
    expect(JSON.stringify(mail)).not.toContain(attachmentBytes.toString('base64').slice(0, 40));
  });

  it('takes the raw payload as the decoded message', () => {
    const message = Buffer.from(
      'From: a@example.com\r\nTo: box@mail.example.org\r\nSubject: hé\r\n\r\nbody\r\n',
      'utf8',
    );
    const mail = postalToInbound({
      id: 7,
      rcpt_to: ' BOX@Mail.Example.org ',
      mail_from: '',
      message: encode64(message),
      base64: true,
      size: 859,
    });
    expect(mail).toMatchObject({
      via: 'POSTAL',
      recipients: ['box@mail.example.org'],
      envelopeFrom: null,
      processed: null,
      size: message.length,
      providerDeliveryId: '7',
      remote: 'postal',
    });
    expect('raw' in mail && mail.raw?.equals(message)).toBe(true);
  });

  it('uses the token when there is no id', () => {
    const { id: _, ...withoutId } = processed;
    expect(postalToInbound(withoutId)).toMatchObject({ providerDeliveryId: 'rtmuzogUauKN' });
  });

  it('takes a payload without attachment data, and without size', () => {
    const { attachments: _a, size: _s, ...bare } = processed;
    expect(postalToInbound(bare)).toMatchObject({
      processed: { attachments: [] },
      size: Buffer.byteLength('Hello there!') + Buffer.byteLength('<p>Hello there!</p>'),
    });
  });

  it('refuses malformed payloads as MALFORMED', () => {
    const { id: _i, token: _t, ...anonymous } = processed;
    const { rcpt_to: _r, ...noRecipient } = processed;
    const attachment = processed.attachments[0]!;
    const cases: unknown[] = [
      null,
      'text',
      [processed],
      noRecipient,
      anonymous,
      { ...processed, rcpt_to: '  ' },
      { ...processed, id: -1 },
      { ...processed, id: 'abc' },
      { ...processed, size: 'big' },
      { ...processed, subject: 42 },
      { ...processed, attachment_quantity: 2 },
      { ...processed, attachments: [{ ...attachment, data: 'not base64!' }] },
      { ...processed, attachments: [{ ...attachment, size: 5 }] },
      { ...processed, attachments: [{ ...attachment, data: undefined }] },
      { id: 1, rcpt_to: 'box@mail.example.org', message: 'not base64!', base64: true },
      { id: 1, rcpt_to: 'box@mail.example.org', message: '', base64: true },
      { id: 1, message: encode64(Buffer.from('x')), base64: true },
      { rcpt_to: 'box@mail.example.org', message: encode64(Buffer.from('x')), base64: true },
    ];
    for (const body of cases) {
      const result = postalToInbound(body);
      expect(result).toMatchObject({ refusal: 'MALFORMED' });
      expect((result as { detail: string }).detail.length).toBeGreaterThan(0);
    }
  });
});
