import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildPdf } from '../../../test/support/pdf-fixture.ts';
import { inferImportFormat, isMhtml, isSingleFileHtml } from './infer.ts';
import { countLines, decodeImportText, looksLikeLog } from './text.ts';
import { type ImportFormat, ImportRefused } from './types.ts';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`../../../test/fixtures/imports/${name}`, import.meta.url)));
const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

const pdf = buildPdf(['one page']);
const png = new Uint8Array(
  await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
    .png()
    .toBuffer(),
);
const jpeg = new Uint8Array(
  await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } })
    .jpeg()
    .toBuffer(),
);
const cyclonedx = utf8(JSON.stringify({ bomFormat: 'CycloneDX', specVersion: '1.5', components: [] }));
const spdx = utf8(JSON.stringify({ spdxVersion: 'SPDX-2.3', SPDXID: 'SPDXRef-DOCUMENT', packages: [] }));
const log = utf8(
  [
    '2024-03-05T10:15:00Z INFO trail index started',
    '2024-03-05T10:15:01Z WARN certificate expires in 1 day',
    '    at renew (cert.js:10)',
    '2024-03-05T10:16:00Z ERROR certificate expired',
  ].join('\n'),
);

function refusalOf(bytes: Uint8Array, contentType: string, declared?: ImportFormat) {
  const outcome = inferImportFormat(bytes, contentType, declared);
  if (outcome.ok) throw new Error(`expected a refusal, got ${outcome.format}`);
  return outcome.refusal;
}

describe('inferImportFormat: from the bytes', () => {
  it.each<[string, Uint8Array, string, ImportFormat]>([
    ['a PDF', pdf, '', 'pdf'],
    ['a PDF sent as octet-stream', pdf, 'application/octet-stream', 'pdf'],
    ['a PNG', png, '', 'png'],
    ['a JPEG sent as image/png', jpeg, 'image/png', 'jpeg'],
    ['an MHTML archive', fixture('advisory.mhtml'), '', 'snapshot'],
    ['an MHTML archive sent as text/html', fixture('advisory.mhtml'), 'text/html', 'snapshot'],
    ['a SingleFile capture', fixture('singlefile.html'), 'text/html', 'snapshot'],
    [
      'a "saved from url" capture',
      utf8('<!DOCTYPE html>\n<!-- saved from url=(0022)https://a.example.test/ -->\n<html><p>x</p></html>'),
      '',
      'snapshot',
    ],
    [
      'HTML inlining everything as data URIs',
      utf8('<html><body><img src="data:image/png;base64,AAAA"><p>x</p></body></html>'),
      '',
      'snapshot',
    ],
    [
      'ordinary HTML',
      utf8('<!doctype html><html><body><img src="/a.png"><p>x</p></body></html>'),
      '',
      'html',
    ],
    [
      'an HTML fragment sent as text/html',
      utf8('<p>just a fragment</p>'),
      'text/html; charset=utf-8',
      'html',
    ],
    ['a CycloneDX JSON SBOM', cyclonedx, 'application/json', 'cyclonedx'],
    ['an SPDX JSON SBOM', spdx, '', 'spdx'],
    ['a log', log, 'text/plain', 'log'],
    [
      'a syslog',
      utf8('<34>Oct 11 22:14:15 mymachine su: su root failed\nOct 11 22:14:16 mymachine su: ok\n'),
      '',
      'log',
    ],
    ['other JSON', utf8('{"bomFormat": "Other"}'), 'application/json', 'text'],
    ['prose', utf8('Cairns mark trails.\nThey are piles of stones.\n'), '', 'text'],
  ])('reads %s', (_name, bytes, contentType, format) => {
    expect(inferImportFormat(bytes, contentType)).toEqual({ ok: true, format });
  });

  it('reads an MHTML archive with a binary part as a snapshot, not as a binary', () => {
    const bytes = Uint8Array.from([
      ...Buffer.from(
        'MIME-Version: 1.0\nContent-Type: multipart/related; boundary=b\n\n--b\nContent-Type: image/png\nContent-Transfer-Encoding: binary\n\n',
      ),
      ...new Uint8Array(64),
      ...Buffer.from('\n--b\nContent-Type: text/html\n\n<p>x</p>\n--b--\n'),
    ]);
    expect(inferImportFormat(bytes, '')).toEqual({ ok: true, format: 'snapshot' });
  });

  it('refuses an empty file and a binary that is no import format', () => {
    expect(refusalOf(new Uint8Array(), '')).toMatchObject({ code: 'UNREADABLE', tooLarge: false });
    const gif = refusalOf(Uint8Array.from([...Buffer.from('GIF89a'), 1, 0, 1, 0]), 'image/gif');
    expect(gif).toMatchObject({
      code: 'UNSUPPORTED_FORMAT',
      details: { detected: 'gif', content_type: 'image/gif' },
    });
    expect(refusalOf(Uint8Array.from([1, 2, 0, 4]), '')).toMatchObject({ code: 'UNSUPPORTED_FORMAT' });
  });

  it('never lets the Content-Type make text into a binary format', () => {
    const refusal = refusalOf(utf8('not really a pdf'), 'application/pdf');
    expect(refusal).toMatchObject({ code: 'FORMAT_MISMATCH', details: { content_type: 'application/pdf' } });
    expect(refusal.message).toContain('application/pdf');
  });
});

describe('inferImportFormat: a declared format', () => {
  it.each<[string, Uint8Array, ImportFormat, string]>([
    ['png on a PDF', pdf, 'png', 'a PDF'],
    ['pdf on a PNG', png, 'pdf', 'a PNG'],
    ['jpeg on a PNG', png, 'jpeg', 'a PNG'],
    ['text on a PDF', pdf, 'text', 'a PDF'],
    ['log on a JPEG', jpeg, 'log', 'a JPEG'],
    ['pdf on text', utf8('hello'), 'pdf', 'text'],
    ['html on an MHTML archive', fixture('advisory.mhtml'), 'html', 'MHTML'],
    ['snapshot on prose', utf8('just words'), 'snapshot', 'neither MHTML nor HTML'],
    ['cyclonedx on an SPDX SBOM', spdx, 'cyclonedx', 'SPDX'],
    ['spdx on a CycloneDX SBOM', cyclonedx, 'spdx', 'CycloneDX'],
    ['cyclonedx on a log', log, 'cyclonedx', 'not a JSON object'],
  ])('refuses %s as FORMAT_MISMATCH, never reading it as something else', (_name, bytes, declared, said) => {
    const refusal = refusalOf(bytes, '', declared);
    expect(refusal.code).toBe('FORMAT_MISMATCH');
    expect(refusal.message).toContain(`declared ${declared}`);
    expect(refusal.message).toContain(said);
    expect(refusal.next).toMatch(/format/);
    expect(refusal.details).toMatchObject({ declared });
  });

  it.each<[string, Uint8Array, ImportFormat]>([
    ['pdf on a PDF', pdf, 'pdf'],
    ['text on HTML (HTML is text)', fixture('singlefile.html'), 'text'],
    ['html on a single-file capture', fixture('singlefile.html'), 'html'],
    ['snapshot on ordinary HTML', utf8('<html><body><p>x</p></body></html>'), 'snapshot'],
    ['log on prose', utf8('one line'), 'log'],
    ['text on a log', log, 'text'],
    ['cyclonedx on JSON the validator will judge', utf8('{"specVersion":"1.5"}'), 'cyclonedx'],
  ])('accepts %s', (_name, bytes, declared) => {
    expect(inferImportFormat(bytes, 'application/octet-stream', declared)).toEqual({
      ok: true,
      format: declared,
    });
  });
});

describe('import text helpers', () => {
  it('recognises MHTML only from a leading MIME header block naming multipart/related', () => {
    expect(
      isMhtml('MIME-Version: 1.0\r\nContent-Type: multipart/related;\r\n\tboundary="b"\r\n\r\n--b'),
    ).toBe(true);
    expect(isMhtml('MIME-Version: 1.0\nContent-Type: text/plain\n\nhi')).toBe(false);
    expect(isMhtml('Notes on MHTML.\nContent-Type: multipart/related\n')).toBe(false);
  });

  it('treats HTML that still fetches by src as an ordinary page, even with data URIs', () => {
    expect(
      isSingleFileHtml(
        '<html><img src="data:image/png;base64,AA"><script src="https://x.test/a.js"></script>',
      ),
    ).toBe(false);
    expect(
      isSingleFileHtml('<html><img src="data:image/png;base64,AA"><img src="data:image/png;base64,BB">'),
    ).toBe(true);
  });

  it('calls text a log when most lines start like log lines, and not otherwise', () => {
    expect(looksLikeLog('[ERROR] disk full\n[info] retrying\n12:00:01 done\n')).toBe(true);
    expect(looksLikeLog('127.0.0.1 - - [10/Oct/2000:13:55:36 -0700] "GET / HTTP/1.0" 200 2326\n')).toBe(true);
    expect(
      looksLikeLog('2024-01-01 was a Monday.\nMost lines here are prose.\nSo this is not a log.\n'),
    ).toBe(false);
    expect(looksLikeLog('\n\n')).toBe(false);
  });

  it('counts lines with any line ending, a final one starting no new line', () => {
    expect([
      countLines(''),
      countLines('a'),
      countLines('a\n'),
      countLines('a\r\nb\rc'),
      countLines('\n\n'),
    ]).toEqual([0, 1, 1, 3, 2]);
  });

  it('refuses invalid UTF-8 with the offset of the first bad byte, and honours a declared charset', () => {
    const bytes = Uint8Array.from([...Buffer.from('caf\u00e9 ok ', 'utf8'), 0xc3, 0x28, 0x41]);
    const error = (() => {
      try {
        decodeImportText(bytes, null);
      } catch (caught) {
        return caught;
      }
      return null;
    })();
    expect(error).toBeInstanceOf(ImportRefused);
    expect((error as ImportRefused).refusal).toMatchObject({ code: 'INVALID_UTF8', details: { offset: 9 } });
    expect(decodeImportText(Uint8Array.from([0x63, 0x61, 0x66, 0xe9]), 'iso-8859-1')).toBe('caf\u00e9');
    expect(decodeImportText(Uint8Array.from([0xef, 0xbb, 0xbf, 0x61]), null)).toBe('a');
  });
});
