import { mkdtempSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import nodemailer from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../../../../test/support/tls.ts';
import type { InboundMail } from '../types.ts';
import { readTls } from './mailbox-receiver.ts';
import { startSmtpReceiver } from './receiver.ts';
import type { SmtpInboundMail, SmtpReceiver, SmtpReceiverOptions } from './receiver-options.ts';
import { deliveryReply, replyText } from './replies.ts';

/**
 * The built-in receiver against real SMTP clients over loopback: nodemailer's SMTP transport, and
 * a line-by-line conversation on a plain socket where nodemailer would refuse to say what we
 * want to test (it will not declare a SIZE over the advertised limit).
 */

// The receiver's own mail type is an InboundMail (typecheck fails otherwise): a deliverMail that
// takes one plugs in as `deliver` unchanged.
const deliverMail = async (_mail: InboundMail): Promise<DeliverResult> => ({ ok: true });
const asDeliver: SmtpReceiverOptions['deliver'] = deliverMail;
void asDeliver;

const MAX_BYTES = 4096;
const KNOWN = new Set(['box-1@mail.test', 'box-2@mail.test']);

type DeliverResult = Awaited<ReturnType<SmtpReceiverOptions['deliver']>>;

interface Harness {
  receiver: SmtpReceiver;
  delivered: SmtpInboundMail[];
  looked: string[];
  warns: Array<{ obj: object; msg: string }>;
}

const open: SmtpReceiver[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

async function start(
  overrides: Partial<SmtpReceiverOptions> & {
    answer?: (mail: SmtpInboundMail) => Promise<DeliverResult>;
  } = {},
): Promise<Harness> {
  const delivered: SmtpInboundMail[] = [];
  const looked: string[] = [];
  const warns: Harness['warns'] = [];
  const { answer, ...rest } = overrides;
  const receiver = await startSmtpReceiver({
    host: '127.0.0.1',
    port: 0,
    name: 'mail.test',
    maxBytes: MAX_BYTES,
    async checkRecipient(address) {
      looked.push(address);
      return KNOWN.has(address)
        ? { ok: true }
        : { ok: false, code: 550, message: 'No such mailbox here', unknown: true };
    },
    async deliver(mail) {
      delivered.push(mail);
      return answer ? answer(mail) : { ok: true };
    },
    logger: { warn: (obj, msg) => warns.push({ obj, msg }) },
    ...rest,
  });
  open.push(receiver);
  return { receiver, delivered, looked, warns };
}

function transport(port: number, extra: SMTPTransport.Options = {}) {
  return nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    name: 'client.test',
    connectionTimeout: 5_000,
    ...extra,
  });
}

/** A message with CRLF lines, a line that starts with a dot (dot-stuffed on the wire) and UTF-8. */
function message(body = 'Hello.\r\n.a line that starts with a dot\r\n..two dots\r\nGrüße\r\n'): Buffer {
  return Buffer.from(
    'From: Sender <sender@outside.test>\r\n' +
      'To: box-1@mail.test\r\n' +
      'Subject: test\r\n' +
      'Message-ID: <1@outside.test>\r\n' +
      'MIME-Version: 1.0\r\n' +
      'Content-Type: text/plain; charset=utf-8\r\n' +
      'Content-Transfer-Encoding: 8bit\r\n' +
      '\r\n' +
      body,
  );
}

async function sendRaw(port: number, to: string[], raw: Buffer, extra: SMTPTransport.Options = {}) {
  const t = transport(port, extra);
  try {
    return await t.sendMail({ envelope: { from: 'sender@outside.test', to }, raw });
  } finally {
    t.close();
  }
}

async function failure(
  promise: Promise<unknown>,
): Promise<{ responseCode?: number; response?: string; code?: string }> {
  try {
    await promise;
  } catch (err) {
    return err as { responseCode?: number; response?: string };
  }
  throw new Error('expected the send to fail');
}

/** A plain socket speaking SMTP one command at a time. */
async function talk(port: number) {
  const plain = net.createConnection({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    plain.once('connect', () => resolve());
    plain.once('error', reject);
  });
  let socket: net.Socket = plain;
  let buffered = '';
  let ended = false;
  const waiters: Array<() => void> = [];
  const wake = () => {
    for (const w of waiters.splice(0)) w();
  };
  const listen = (s: net.Socket) => {
    s.setEncoding('utf8');
    s.on('data', (chunk: string) => {
      buffered += chunk;
      wake();
    });
    s.on('close', () => {
      ended = true;
      wake();
    });
    s.on('error', () => {});
  };
  listen(plain);
  /** The next whole reply (all its lines), or null when the server closed the connection. */
  async function reply(): Promise<string | null> {
    for (;;) {
      const match = /^(?:\d{3}-[^\r\n]*\r\n)*\d{3}(?: [^\r\n]*)?\r\n/.exec(buffered);
      if (match) {
        buffered = buffered.slice(match[0].length);
        return match[0].trimEnd();
      }
      if (ended) return null;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  }
  async function command(line: string): Promise<string | null> {
    socket.write(`${line}\r\n`);
    return reply();
  }
  /** Upgrades the conversation after a 220 to STARTTLS, trusting only `ca`. */
  async function starttls(ca: string): Promise<void> {
    plain.removeAllListeners('data');
    plain.removeAllListeners('close');
    const secure = tls.connect({ socket: plain, ca: [ca], servername: 'localhost' });
    await new Promise<void>((resolve, reject) => {
      secure.once('secureConnect', () => resolve());
      secure.once('error', reject);
    });
    socket = secure;
    listen(secure);
  }
  const greeting = await reply();
  return {
    greeting,
    reply,
    command,
    starttls,
    write: (data: string | Buffer) => socket.write(data),
    closed: () => new Promise<void>((resolve) => (ended ? resolve() : socket.once('close', () => resolve()))),
    end: () => socket.destroy(),
  };
}

describe('the SMTP receiver', () => {
  it('hands over a mail to a known mailbox with its exact bytes and envelope', async () => {
    const { receiver, delivered, looked, warns } = await start();
    const raw = message();
    const info = await sendRaw(receiver.port, ['Box-1@Mail.TEST', 'box-2@mail.test'], raw);

    // nodemailer lowercases the domain itself; the local part comes as written.
    expect(info.accepted).toEqual(['Box-1@mail.test', 'box-2@mail.test']);
    expect(info.response).toMatch(/^250 2\.6\.0 /);
    expect(looked).toEqual(['box-1@mail.test', 'box-2@mail.test']);
    expect(delivered).toHaveLength(1);
    const mail = delivered[0]!;
    expect(mail.raw?.equals(raw)).toBe(true);
    expect(mail).toMatchObject({
      via: 'SMTP',
      recipients: ['box-1@mail.test', 'box-2@mail.test'],
      envelopeFrom: 'sender@outside.test',
      processed: null,
      size: raw.length,
      providerDeliveryId: null,
      remote: '127.0.0.1',
    });
    expect(warns).toEqual([]);
  });

  it('refuses an unknown recipient at RCPT TO (550 5.1.1) and delivers nothing', async () => {
    const { receiver, delivered } = await start();
    const err = await failure(sendRaw(receiver.port, ['nobody@mail.test'], message()));
    expect(err.responseCode).toBe(550);
    expect(err.response).toMatch(/^550 5\.1\.1 /);
    expect(delivered).toEqual([]);

    // Relaying is the same refusal: another domain is just another unknown address.
    const relay = await failure(sendRaw(receiver.port, ['someone@elsewhere.example'], message()));
    expect(relay.responseCode).toBe(550);
    expect(delivered).toEqual([]);
  });

  it('delivers to the known recipients of a mixed envelope only', async () => {
    const { receiver, delivered } = await start();
    const info = await sendRaw(receiver.port, ['box-1@mail.test', 'nobody@mail.test'], message());
    expect(info.accepted).toEqual(['box-1@mail.test']);
    expect(info.rejected).toEqual(['nobody@mail.test']);
    expect(delivered.map((m) => m.recipients)).toEqual([['box-1@mail.test']]);
  });

  it('answers 451 4.3.0 when the recipient lookup fails, and logs no address', async () => {
    const { receiver, delivered, warns } = await start({
      checkRecipient: async () => {
        throw new Error('database unavailable');
      },
    });
    const err = await failure(sendRaw(receiver.port, ['box-1@mail.test'], message()));
    expect(err.responseCode).toBe(451);
    expect(err.response).toMatch(/^451 4\.3\.0 /);
    expect(delivered).toEqual([]);
    expect(warns).toHaveLength(1);
    expect(JSON.stringify(warns)).not.toContain('box-1');
  });

  it('answers 451 when the lookup takes too long', async () => {
    const { receiver } = await start({
      checkRecipient: () => new Promise<never>(() => {}),
      limits: { lookupTimeoutMs: 200 },
    });
    const err = await failure(sendRaw(receiver.port, ['box-1@mail.test'], message()));
    expect(err.responseCode).toBe(451);
  });

  it('refuses a MAIL FROM that declares a SIZE over the limit (552 5.3.4)', async () => {
    const { receiver } = await start();
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    expect(await c.command(`MAIL FROM:<sender@outside.test> SIZE=${MAX_BYTES + 1}`)).toMatch(/^552 5\.3\.4 /);
    expect(await c.command(`MAIL FROM:<sender@outside.test> SIZE=${MAX_BYTES}`)).toMatch(/^250 /);
    c.end();
  });

  it('refuses a message over the limit after DATA (552 5.3.4), delivers nothing, and goes on', async () => {
    const { receiver, delivered } = await start();
    const big = message(`${'x'.repeat(998)}\r\n`.repeat(Math.ceil(MAX_BYTES / 1000) + 1));
    expect(big.length).toBeGreaterThan(MAX_BYTES);
    const err = await failure(sendRaw(receiver.port, ['box-1@mail.test'], big));
    expect(err.responseCode).toBe(552);
    expect(err.response).toMatch(/^552 5\.3\.4 /);
    expect(delivered).toEqual([]);

    // A message of exactly the limit passes.
    const head = message('');
    const exact = Buffer.concat([head, Buffer.from(`${'y'.repeat(MAX_BYTES - head.length - 2)}\r\n`)]);
    expect(exact.length).toBe(MAX_BYTES);
    await sendRaw(receiver.port, ['box-1@mail.test'], exact);
    expect(delivered.map((m) => m.raw?.equals(exact))).toEqual([true]);
  });

  it('keeps the session usable after an oversized message, and reports it for the record', async () => {
    const reported: Array<{ recipients: string[]; size: number; raw: null }> = [];
    const { receiver, delivered } = await start({
      oversized: async (mail) => {
        reported.push({ recipients: mail.recipients, size: mail.size, raw: mail.raw });
      },
    });
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    await c.command('MAIL FROM:<sender@outside.test>');
    await c.command('RCPT TO:<box-1@mail.test>');
    expect(await c.command('DATA')).toMatch(/^354 /);
    c.write(`${'z'.repeat(900)}\r\n`.repeat(10));
    expect(await c.command('.')).toMatch(/^552 5\.3\.4 /);
    await c.command('MAIL FROM:<>');
    await c.command('RCPT TO:<box-2@mail.test>');
    await c.command('DATA');
    c.write('Subject: small\r\n\r\nok\r\n');
    expect(await c.command('.')).toMatch(/^250 /);
    c.end();
    expect(delivered).toHaveLength(1);
    expect(delivered[0]).toMatchObject({
      recipients: ['box-2@mail.test'],
      envelopeFrom: null,
      raw: Buffer.from('Subject: small\r\n\r\nok\r\n'),
    });
    expect(reported).toEqual([{ recipients: ['box-1@mail.test'], size: expect.any(Number), raw: null }]);
    expect(reported[0]?.size).toBeGreaterThan(MAX_BYTES);
  });

  it('delivers nothing when the client goes away in the middle of a message', async () => {
    const { receiver, delivered, warns } = await start();
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    await c.command('MAIL FROM:<sender@outside.test>');
    await c.command('RCPT TO:<box-1@mail.test>');
    await c.command('DATA');
    c.write('Subject: cut short\r\n\r\nhalf a mess');
    await new Promise((resolve) => setTimeout(resolve, 50));
    c.end();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(delivered).toEqual([]);
    expect(warns).toEqual([]);
    // The receiver is still there for the next client.
    await sendRaw(receiver.port, ['box-1@mail.test'], message());
    expect(delivered).toHaveLength(1);
  });

  it('refuses to start on a port already taken', async () => {
    const { receiver } = await start();
    await expect(start({ port: receiver.port })).rejects.toThrow(/EADDRINUSE/);
  });

  it('passes the refusal of deliver on as the reply the client sees', async () => {
    const answers: DeliverResult[] = [
      { ok: false, code: 452, message: 'Mailbox full' },
      { ok: false, code: 550, message: '5.7.1 Campaign closed' },
      { ok: false, code: 250, message: 'not a refusal code' },
    ];
    const { receiver, delivered } = await start({ answer: async () => answers.shift()! });

    const full = await failure(sendRaw(receiver.port, ['box-1@mail.test'], message()));
    expect(full.responseCode).toBe(452);
    expect(full.response).toBe('452 4.2.2 Mailbox full');

    const closed = await failure(sendRaw(receiver.port, ['box-1@mail.test'], message()));
    expect(closed.responseCode).toBe(550);
    expect(closed.response).toBe('550 5.1.1 Campaign closed');

    const odd = await failure(sendRaw(receiver.port, ['box-1@mail.test'], message()));
    expect(odd.responseCode).toBe(451);
    expect(delivered).toHaveLength(3);
  });

  it('answers 451 when deliver throws, and logs neither the message nor its addresses', async () => {
    const { receiver, warns } = await start({
      answer: async () => {
        throw new Error('storage failed');
      },
    });
    const err = await failure(sendRaw(receiver.port, ['box-1@mail.test'], message('a secret body line\r\n')));
    expect(err.responseCode).toBe(451);
    expect(err.response).toMatch(/^451 4\.3\.0 /);
    expect(warns).toHaveLength(1);
    expect(warns[0]!.msg).toContain('delivery failed');
    const logged = JSON.stringify(warns);
    expect(logged).toContain('storage failed');
    for (const secret of ['secret body', 'box-1', 'sender@outside']) expect(logged).not.toContain(secret);
  });

  it('takes at most 20 recipients per message (452 for the next)', async () => {
    const { receiver, delivered } = await start({ checkRecipient: async () => ({ ok: true }) });
    const to = Array.from({ length: 21 }, (_, i) => `box-${i}@mail.test`);
    const info = await sendRaw(receiver.port, to, message());
    expect(info.accepted).toHaveLength(20);
    expect(info.rejected).toEqual(['box-20@mail.test']);
    const refusals = (info as { rejectedErrors?: Array<{ responseCode?: number }> }).rejectedErrors;
    expect(refusals?.[0]?.responseCode).toBe(452);
    expect(delivered[0]?.recipients).toHaveLength(20);
  });

  it('advertises SIZE and neither AUTH nor STARTTLS without a certificate, and refuses AUTH', async () => {
    const { receiver } = await start();
    const c = await talk(receiver.port);
    expect(c.greeting).toMatch(/^220 mail\.test ESMTP/);
    const ehlo = (await c.command('EHLO client.test'))!;
    const extensions = ehlo.split('\r\n').map((line) => line.slice(4));
    expect(extensions).toContain(`SIZE ${MAX_BYTES}`);
    expect(extensions.some((e) => /^AUTH\b/i.test(e))).toBe(false);
    expect(extensions).not.toContain('STARTTLS');
    expect(ehlo).toMatch(/ENHANCEDSTATUSCODES/);
    expect(await c.command(`AUTH PLAIN ${Buffer.from('\0a\0b').toString('base64')}`)).toMatch(/^5\d\d /);
    expect(await c.command('STARTTLS')).toMatch(/^5\d\d /);
    // Nothing is required before MAIL: no authentication step exists.
    expect(await c.command('MAIL FROM:<sender@outside.test>')).toMatch(/^250 /);
    c.end();

    // A client that insists on TLS finds none.
    const err = await failure(
      sendRaw(receiver.port, ['box-1@mail.test'], message(), { ignoreTLS: false, requireTLS: true }),
    );
    expect(String((err as Error).message)).toMatch(/STARTTLS/);
  });

  it('offers STARTTLS with a certificate, and delivers over it', async () => {
    const { key, cert } = selfSignedCertificate('localhost');
    const { receiver, delivered } = await start({ tls: { key, cert } });

    const c = await talk(receiver.port);
    const ehlo = (await c.command('EHLO client.test'))!;
    expect(ehlo).toMatch(/^250[ -]STARTTLS$/m);
    expect(ehlo).not.toMatch(/AUTH/);
    expect(await c.command('STARTTLS')).toMatch(/^220 /);
    await c.starttls(cert);
    const secured = (await c.command('EHLO client.test'))!;
    expect(secured).toMatch(/SIZE 4096/);
    expect(secured).not.toMatch(/AUTH|STARTTLS/);
    expect(await c.command('AUTH LOGIN')).toMatch(/^5\d\d /);
    c.end();

    const raw = message();
    const info = await sendRaw(receiver.port, ['box-1@mail.test'], raw, {
      ignoreTLS: false,
      requireTLS: true,
      tls: { ca: [cert], servername: 'localhost' },
    });
    expect(info.accepted).toEqual(['box-1@mail.test']);
    expect(delivered).toHaveLength(1);
    expect(delivered[0]!.raw?.equals(raw)).toBe(true);

    // An untrusted certificate is the client's refusal, not ours: nothing arrives.
    const other = selfSignedCertificate('localhost');
    const err = await failure(
      sendRaw(receiver.port, ['box-1@mail.test'], raw, {
        ignoreTLS: false,
        requireTLS: true,
        tls: { ca: [other.cert], servername: 'localhost' },
      }),
    );
    expect(String((err as Error).message)).toMatch(/certificate/i);
    expect(delivered).toHaveLength(1);
  });

  it('turns away connections over maxClients', async () => {
    const { receiver } = await start({ limits: { maxClients: 1 } });
    const first = await talk(receiver.port);
    expect(first.greeting).toMatch(/^220 /);
    const second = await talk(receiver.port);
    expect(second.greeting).toMatch(/^421 /);
    first.end();
    second.end();
  });

  it('turns away connections over maxClientsPerAddress, and takes one again when one closes', async () => {
    const { receiver } = await start({ limits: { maxClientsPerAddress: 2 } });
    const first = await talk(receiver.port);
    const second = await talk(receiver.port);
    expect([first.greeting, second.greeting]).toEqual([
      expect.stringMatching(/^220 /),
      expect.stringMatching(/^220 /),
    ]);
    const third = await talk(receiver.port);
    expect(third.greeting).toMatch(/^421 Too many connections from your address/);
    await third.closed();
    expect(await first.command('QUIT')).toMatch(/^221 /);
    await first.closed();
    // The slot is given back once the server has seen the close.
    for (let i = 0; i < 50; i++) {
      const again = await talk(receiver.port);
      const ok = again.greeting?.startsWith('220 ');
      again.end();
      if (ok) break;
      if (i === 49) throw new Error('the closed connection never gave its slot back');
      await new Promise((r) => setTimeout(r, 20));
    }
    second.end();
  });

  it('ends a connection that names too many unknown recipients (address guessing)', async () => {
    const { receiver, delivered } = await start({ limits: { maxUnknownRecipients: 2 } });
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    await c.command('MAIL FROM:<sender@outside.test>');
    expect(await c.command('RCPT TO:<guess-1@mail.test>')).toMatch(/^550 /);
    // A known mailbox in between does not reset the count.
    expect(await c.command('RCPT TO:<box-1@mail.test>')).toMatch(/^250 /);
    expect(await c.command('RCPT TO:<guess-2@mail.test>')).toMatch(/^550 /);
    expect(await c.command('RCPT TO:<guess-3@mail.test>')).toMatch(
      /^421 4\.4\.2 Too many unknown recipients/,
    );
    await c.closed();
    expect(delivered).toEqual([]);
  });

  it('does not count a refusal of a real mailbox (full, closed) as a guess', async () => {
    const { receiver } = await start({
      limits: { maxUnknownRecipients: 1 },
      checkRecipient: async () => ({ ok: false, code: 452, message: 'Mailbox full', unknown: false }),
    });
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    await c.command('MAIL FROM:<sender@outside.test>');
    for (let i = 0; i < 3; i++) {
      expect(await c.command(`RCPT TO:<box-${i}@mail.test>`)).toMatch(/^452 4\.2\.2 Mailbox full/);
    }
    expect(await c.command('QUIT')).toMatch(/^221 /);
  });

  it('ends a connection after too many refused recipients of any kind (issue 40)', async () => {
    const { receiver } = await start({
      limits: { maxRefusedRecipients: 2 },
      checkRecipient: async () => ({ ok: false, code: 550, message: 'Mailbox closed', unknown: false }),
    });
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    await c.command('MAIL FROM:<sender@outside.test>');
    expect(await c.command('RCPT TO:<box-1@mail.test>')).toMatch(/^550 /);
    expect(await c.command('RCPT TO:<box-2@mail.test>')).toMatch(/^550 /);
    expect(await c.command('RCPT TO:<box-3@mail.test>')).toMatch(/^421 4\.4\.2 Too many refused recipients/);
    await c.closed();
  });

  it('ends a message whose DATA trickles past the DATA time limit (issue 40)', async () => {
    const { receiver, delivered } = await start({ limits: { dataMs: 300 } });
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    await c.command('MAIL FROM:<sender@outside.test>');
    await c.command('RCPT TO:<box-1@mail.test>');
    expect(await c.command('DATA')).toMatch(/^354 /);
    c.write('Subject: slow\r\n');
    expect(await c.reply()).toMatch(/^421 4\.4\.2 Message took too long to send/);
    await c.closed();
    expect(delivered).toEqual([]);
  });

  it('ends a connection at its session time limit', async () => {
    const { receiver } = await start({ limits: { sessionMs: 300 } });
    const c = await talk(receiver.port);
    expect(await c.command('EHLO client.test')).toMatch(/^250/);
    expect(await c.reply()).toMatch(/^421 4\.4\.2 Session time limit reached/);
    await c.closed();
  });

  it('close() ends open connections and stops listening', async () => {
    const { receiver } = await start();
    const c = await talk(receiver.port);
    await c.command('EHLO client.test');
    const t0 = Date.now();
    await receiver.close();
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(await c.reply()).toMatch(/^421 /);
    await c.closed();
    await expect(talk(receiver.port)).rejects.toThrow(/ECONNREFUSED/);
    await receiver.close(); // twice is fine
  });

  it('close() lets a delivery under way answer first', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const inDelivery = new Promise<void>((resolve) => (started = resolve));
    const { receiver, delivered } = await start({
      answer: async () => {
        started();
        await held;
        return { ok: true };
      },
    });
    const sending = sendRaw(receiver.port, ['box-1@mail.test'], message());
    await inDelivery;
    const closing = receiver.close();
    setTimeout(release, 100);
    const info = await sending;
    await closing;
    expect(info.response).toMatch(/^250 /);
    expect(delivered).toHaveLength(1);
  });
});

describe('the STARTTLS files of cairn serve', () => {
  it('takes a key and its certificate, and refuses a key that is not the certificate’s', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'cairn-smtp-tls-'));
    const one = selfSignedCertificate('localhost');
    const other = selfSignedCertificate('localhost');
    const file = (name: string, text: string) => {
      writeFileSync(path.join(dir, name), text);
      return path.join(dir, name);
    };
    const key = file('key.pem', one.key);
    expect(readTls(key, file('cert.pem', one.cert)).cert.toString()).toBe(one.cert);
    expect(() => readTls(key, file('other.pem', other.cert))).toThrow(
      /the key is not the certificate’s private key/,
    );
    expect(() => readTls(key, file('junk.pem', 'not a certificate'))).toThrow(
      /not a PEM key and certificate/,
    );
  });
});

describe('replies', () => {
  it('keeps a refusal text to one line without an enhanced code of its own', () => {
    expect(replyText('5.2.2 Mailbox\r\nfull\u0000')).toBe('Mailbox full');
    expect(replyText('x'.repeat(500))).toHaveLength(200);
    expect(deliveryReply({ ok: false, code: 554, message: '' }).error).toMatchObject({
      responseCode: 554,
      message: 'Message refused',
    });
    expect(deliveryReply({ ok: false, code: 99, message: 'odd' }).error?.responseCode).toBe(451);
    expect(deliveryReply({ ok: true })).toEqual({ error: null, message: 'Message accepted' });
  });
});
