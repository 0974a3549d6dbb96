import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Cairn receives mail and never sends it (issue 18): no code path may become a way out. This reads
 * the sources and fails when one appears: an SMTP or mail-sending client in the dependencies or
 * imported by anything under src/, a raw socket or TLS connection opened outside the guarded
 * fetcher in src/net/, a spawned process (sendmail), or the send endpoint of a mail provider's API.
 *
 * Test files are not read: they are no code path of the server, and the receiver's own tests talk
 * to it with nodemailer (a devDependency) and a plain socket. nodemailer is still in node_modules in
 * production, as a dependency of smtp-server (its logger) and mailparser (its address parser); what
 * keeps it unused is that nothing here imports it.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const SRC = path.join(ROOT, 'src');
/** The guarded fetcher: the one place that opens connections out (docs/architecture.md). */
const NET_DIR = `src${path.sep}net${path.sep}`;

/** Packages that send mail, or talk SMTP as a client. */
const MAIL_SENDERS = [
  'nodemailer',
  'smtp-connection',
  'smtp-client',
  'emailjs',
  'emailjs-smtp-client',
  'sendmail',
  '@sendgrid/mail',
  '@sendgrid/client',
  'mailgun.js',
  'mailgun-js',
  'postmark',
  'node-mailjet',
  'mailersend',
  'resend',
  'sparkpost',
  'mandrill-api',
  '@mailchimp/mailchimp_transactional',
  '@aws-sdk/client-ses',
  '@aws-sdk/client-sesv2',
  '@azure/communication-email',
];
/** A package name that looks like one of them; smtp-server is the receiver and has no client. */
const SENDER_LIKE = /smtp|mailer|sendmail|sendgrid|mailgun|postmark|mailjet|sparkpost|mandrill|client-ses/i;
const ALLOWED_MAIL_PACKAGES = new Set(['smtp-server', '@types/smtp-server']);

function isMailSender(pkg: string): boolean {
  return MAIL_SENDERS.includes(pkg) || (SENDER_LIKE.test(pkg) && !ALLOWED_MAIL_PACKAGES.has(pkg));
}

/** The package a module specifier names ('nodemailer/lib/x' → 'nodemailer', '@a/b/c' → '@a/b'). */
function packageOf(specifier: string): string {
  const bare = specifier.replace(/^node:/, '');
  const parts = bare.split('/');
  return bare.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

/** Every module a source text names: static and dynamic imports, re-exports, require(). */
function moduleSpecifiers(text: string): string[] {
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s[^'"`;]*?\bfrom\s*(['"`])([^'"`]+)\1/g,
    /\bimport\s*(['"`])([^'"`]+)\1/g,
    /\bimport\s*\(\s*(['"`])([^'"`]+)\1/g,
    /\brequire(?:\.resolve)?\s*\(\s*(['"`])([^'"`]+)\1/g,
  ];
  for (const pattern of patterns) {
    for (const match of text.matchAll(pattern)) found.push(match[2]!);
  }
  return found;
}

/**
 * Ways a source text opens a connection itself: net.connect / net.createConnection /
 * tls.connect / new net.Socket (under whatever name the module was imported), those functions
 * imported by name, http2.connect, a UDP socket, or the module loaded dynamically.
 */
function connectionOpeners(text: string): string[] {
  const found: string[] = [];
  const names = new Set(['net', 'tls', 'http2', 'dgram']);
  const moduleRef = String.raw`['"\`](?:node:)?(net|tls|http2|dgram)['"\`]`;
  for (const m of text.matchAll(
    new RegExp(String.raw`\bimport\s+(?!type\b)([^'"\`;]*?)\s+from\s*${moduleRef}`, 'g'),
  )) {
    const clause = m[1]!;
    const defaultOrNamespace = /^(?:\*\s+as\s+)?([A-Za-z_$][\w$]*)/.exec(clause.trim());
    if (defaultOrNamespace) names.add(defaultOrNamespace[1]!);
    const namespace = /\*\s+as\s+([A-Za-z_$][\w$]*)/.exec(clause);
    if (namespace) names.add(namespace[1]!);
    const named = /\{([^}]*)\}/.exec(clause);
    for (const item of named?.[1]?.split(',') ?? []) {
      const [imported, local] = item.trim().split(/\s+as\s+/);
      if (!imported || imported.startsWith('type ')) continue;
      if (['connect', 'createConnection', 'Socket'].includes(imported)) {
        found.push(`imports ${imported} from ${m[2]}`);
      }
      if (local) names.add(local);
    }
  }
  for (const m of text.matchAll(
    new RegExp(
      String.raw`\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*require\s*\(\s*${moduleRef}\s*\)`,
      'g',
    ),
  )) {
    names.add(m[1]!);
  }
  for (const m of text.matchAll(new RegExp(String.raw`\bimport\s*\(\s*${moduleRef}`, 'g'))) {
    found.push(`loads ${m[1]} dynamically`);
  }
  for (const name of names) {
    const id = name.replace(/\$/g, '\\$');
    for (const m of text.matchAll(
      new RegExp(String.raw`\b${id}\s*\.\s*(connect|createConnection)\s*\(`, 'g'),
    )) {
      found.push(`${name}.${m[1]}(`);
    }
    if (new RegExp(String.raw`\bnew\s+${id}\s*\.\s*Socket\s*\(`).test(text))
      found.push(`new ${name}.Socket(`);
    if (new RegExp(String.raw`\b${id}\s*\.\s*createSocket\s*\(`).test(text))
      found.push(`${name}.createSocket(`);
  }
  return found;
}

/** The send endpoints of mail providers' HTTP APIs (receiving uses their webhooks, never these). */
const SEND_ENDPOINTS: Array<[string, RegExp]> = [
  ['Mailgun send', /\/v3\/[^'"`\s/]+\/messages(?:\.mime)?(?=['"`?\s]|$)/m],
  ['Postal send', /\/api\/v1\/send\/(?:message|raw)/],
  ['SendGrid send', /\/v3\/mail\/send/],
  ['Postmark', /api\.postmarkapp\.com/],
  ['Amazon SES', /email(?:-smtp)?\.[a-z0-9-]+\.amazonaws\.com/],
  ['Resend', /api\.resend\.com/],
  ['Mailjet send', /api\.mailjet\.com\/v3(?:\.1)?\/send/],
];

function sourceFiles(dir: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...sourceFiles(full));
    else if (/\.(?:[cm]?ts|[cm]?js)$/.test(entry.name) && !/\.test\.[cm]?[tj]s$/.test(entry.name)) {
      files.push(full);
    }
  }
  return files;
}

const sources = sourceFiles(SRC).map((file) => ({
  file: path.relative(ROOT, file),
  text: readFileSync(file, 'utf8'),
}));

describe('no code path sends mail', () => {
  it('reads the sources it vouches for', () => {
    const names = sources.map((s) => s.file.split(path.sep).join('/'));
    expect(names.length).toBeGreaterThan(100);
    expect(names).toContain('src/domains/mail/smtp/receiver.ts');
    expect(names).toContain('src/net/pinned-request.ts');
    expect(names.some((n) => n.endsWith('.test.ts'))).toBe(false);
  });

  it('has no mail-sending package among the dependencies; nodemailer is for tests only', () => {
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | string[] | undefined
    >;
    const shipped = [
      'dependencies',
      'optionalDependencies',
      'peerDependencies',
      'bundleDependencies',
      'bundledDependencies',
    ].flatMap((field) => {
      const value = pkg[field];
      return Array.isArray(value) ? value : Object.keys(value ?? {});
    });
    expect(shipped.filter(isMailSender)).toEqual([]);
    expect(shipped).not.toContain('nodemailer');
    expect(Object.keys((pkg.devDependencies as Record<string, string>) ?? {})).toContain('nodemailer');
    expect(shipped).toContain('smtp-server');
  });

  it('imports no SMTP or mail-sending client anywhere under src/', () => {
    const offenders = sources.flatMap(({ file, text }) =>
      moduleSpecifiers(text)
        .filter((spec) => !spec.startsWith('.') && isMailSender(packageOf(spec)))
        .map((spec) => `${file}: ${spec}`),
    );
    expect(offenders).toEqual([]);
  });

  it('opens no socket or TLS connection outside the guarded fetcher in src/net/', () => {
    const offenders = sources
      .filter(({ file }) => !file.startsWith(NET_DIR))
      .flatMap(({ file, text }) => connectionOpeners(text).map((how) => `${file}: ${how}`));
    expect(offenders).toEqual([]);
  });

  it('spawns no process (a sendmail binary would be a way out)', () => {
    const offenders = sources.flatMap(({ file, text }) =>
      moduleSpecifiers(text)
        .filter((spec) => packageOf(spec) === 'child_process')
        .map((spec) => `${file}: ${spec}`)
        .concat(/\bsendmail\b/i.test(text) ? [`${file}: mentions sendmail`] : []),
    );
    expect(offenders).toEqual([]);
  });

  it("names no mail provider's send endpoint", () => {
    const offenders = sources.flatMap(({ file, text }) =>
      SEND_ENDPOINTS.filter(([, pattern]) => pattern.test(text)).map(([name]) => `${file}: ${name}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the built-in receiver imports nothing but smtp-server, Cairn itself and local files', () => {
    const smtp = sources.filter(({ file }) =>
      file.startsWith(`src${path.sep}domains${path.sep}mail${path.sep}smtp${path.sep}`),
    );
    expect(smtp.length).toBeGreaterThan(0);
    const outside = smtp.flatMap(({ file, text }) =>
      moduleSpecifiers(text)
        // node:fs reads the TLS key and certificate, node:crypto checks they are a pair (neither
        // opens a connection); pino is the logger's type.
        .filter(
          (spec) =>
            !spec.startsWith('.') && !['smtp-server', 'node:fs', 'node:crypto', 'pino'].includes(spec),
        )
        .map((spec) => `${file}: ${spec}`),
    );
    expect(outside).toEqual([]);
  });

  // The checks above are only as good as their patterns: each must catch what it is for.
  it('its detectors catch what they look for', () => {
    const imports = [
      "import nodemailer from 'nodemailer';",
      'import { createTransport } from "nodemailer";',
      "import SMTPConnection from 'nodemailer/lib/smtp-connection';",
      "const m = require('nodemailer');",
      "const m = await import('smtp-connection');",
      "export { default } from 'emailjs';",
      "import sg from '@sendgrid/mail';",
      "import 'some-smtp-pool';",
    ];
    for (const line of imports) {
      expect(moduleSpecifiers(line).map(packageOf).some(isMailSender), line).toBe(true);
    }
    expect(
      moduleSpecifiers("import { SMTPServer } from 'smtp-server';").map(packageOf).some(isMailSender),
    ).toBe(false);
    expect(isMailSender('mailparser')).toBe(false);

    const openers = [
      "import net from 'node:net';\nnet.connect(25, 'mx.example');",
      "import * as sockets from 'net';\nsockets.createConnection({ port: 25 });",
      "import tls from 'node:tls';\ntls.connect({ host: 'mx.example', port: 465 });",
      "import { connect } from 'node:tls';",
      "import { Socket as S } from 'node:net';",
      "const n = require('net');\nn.connect(25);",
      "import net from 'node:net';\nnew net.Socket();",
      "const { connect } = await import('node:net');",
    ];
    for (const text of openers) expect(connectionOpeners(text), text).not.toEqual([]);
    for (const text of [
      "import type { Socket } from 'node:net';",
      "import { type Socket } from 'node:net';",
      "import tls from 'node:tls';\nconst roots = tls.rootCertificates;",
      'server.connect(socket);',
    ]) {
      expect(connectionOpeners(text), text).toEqual([]);
    }

    // Source text as it would be written: a template literal with a placeholder.
    const mailgunSend = '`https://api.mailgun.net/v3/$' + '{domain}/messages`';
    const mailgunStored = '`https://storage.api.mailgun.net/v3/domains/d/messages/$' + '{key}`';
    expect(SEND_ENDPOINTS.some(([, p]) => p.test(mailgunSend))).toBe(true);
    expect(SEND_ENDPOINTS.some(([, p]) => p.test("'https://postal.example/api/v1/send/raw'"))).toBe(true);
    expect(SEND_ENDPOINTS.some(([, p]) => p.test(mailgunStored))).toBe(false);
  });
});
