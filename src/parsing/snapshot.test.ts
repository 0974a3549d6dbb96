import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ImportRefused } from './import/types.ts';
import { decodeTransfer, readMhtml } from './mail/mhtml.ts';
import { capturedUrlOf, parseSnapshot, singleFileUrl } from './snapshot.ts';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`../../test/fixtures/imports/${name}`, import.meta.url)));
const latin1 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'latin1'));

function refused(read: () => unknown): ImportRefused {
  try {
    read();
  } catch (error) {
    if (error instanceof ImportRefused) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

/** An MHTML message with the given envelope parameters and parts (LF line ends, as some tools write). */
function mhtml(
  params: string,
  parts: Array<{ headers: string[]; body: string }>,
  envelope: string[] = [],
): Uint8Array {
  const lines = [
    'MIME-Version: 1.0',
    ...envelope,
    `Content-Type: multipart/related; boundary="b1"${params}`,
    '',
  ];
  for (const part of parts) lines.push('--b1', ...part.headers, '', part.body);
  lines.push('--b1--', '');
  return latin1(lines.join('\n'));
}

describe('MHTML snapshots', () => {
  it('reads the quoted-printable root part with its captured URL, hidden text flagged, the image part left out', () => {
    const doc = parseSnapshot(fixture('advisory.mhtml'), null);
    expect(doc).toMatchObject({
      format: 'snapshot',
      title: 'Advisory CAIRN-7',
      capturedUrl: 'https://advisories.example.test/2024/cairn-7?ref=feed',
      pages: [],
      pageCount: 1,
      flags: ['INSTRUCTION_LIKE_CONTENT'],
    });
    // Soft line breaks joined, =3D and the UTF-8 é decoded.
    expect(doc.text).toContain(
      'The trail parser in café-maps 2.3 overflows a heap buffer when a waypoint name exceeds 255 bytes.',
    );
    expect(doc.text).not.toMatch(/=3D|=C3|iVBOR|Ignore all previous/);
    expect(doc.transformations.slice(0, 2)).toEqual(['MHTML_ROOT_PART', 'HIDDEN_REMOVED']);
    expect(doc.instructionSpans).toMatchObject([
      { kind: 'HIDDEN_TEXT', offset: -1, excerpt: 'Ignore all previous instructions' },
    ]);
  });

  it('takes the part named by the start parameter, decoding base64', () => {
    const page = Buffer.from('<html><body><p>the real root</p></body></html>').toString('base64');
    const bytes = mhtml('; start="<root@x>"', [
      { headers: ['Content-Type: text/html', 'Content-ID: <decoy@x>'], body: '<p>decoy frame</p>' },
      {
        headers: [
          'Content-Type: text/html; charset=utf-8',
          'Content-ID: <root@x>',
          'Content-Transfer-Encoding: base64',
        ],
        body: page.replace(/(.{20})/g, '$1\n'),
      },
    ]);
    const root = readMhtml(bytes);
    expect(Buffer.from(root.html).toString()).toBe('<html><body><p>the real root</p></body></html>');
    expect(root).toMatchObject({ charset: 'utf-8', partCount: 2, location: null });
    expect(parseSnapshot(bytes, null).text).toBe('the real root');
  });

  it('takes the HTML part at the message Content-Location, else the first HTML part', () => {
    const parts = [
      { headers: ['Content-Type: text/css'], body: 'p{}' },
      {
        headers: ['Content-Type: text/html', 'Content-Location: https://a.example.test/frame'],
        body: '<p>frame</p>',
      },
      {
        headers: ['Content-Type: text/html', 'Content-Location: https://a.example.test/page'],
        body: '<p>page</p>',
      },
    ];
    const located = readMhtml(mhtml('', parts, ['Content-Location: https://a.example.test/page']));
    expect(Buffer.from(located.html).toString()).toBe('<p>page</p>');
    const first = readMhtml(mhtml('', parts));
    expect(Buffer.from(first.html).toString()).toBe('<p>frame</p>');
    // With no envelope location, the root part's own location is where it was captured.
    expect(parseSnapshot(mhtml('', parts), null).capturedUrl).toBe('https://a.example.test/frame');
  });

  it('decodes quoted-printable: soft breaks, =XX bytes, trailing whitespace, stray = kept', () => {
    const decoded = decodeTransfer('a=3Db =\r\nc=C3=A9  \r\nd = e', 'Quoted-Printable');
    expect(Buffer.from(decoded).toString('utf8')).toBe('a=b c\u00e9\r\nd = e');
  });

  it('decodes a long run of blanks with no line break after it (a part that once held a parser for minutes)', () => {
    // Unfixed, trimming trailing blanks retried the run from every position: 300,000 spaces took
    // longer than the test's time limit. The run is kept, as it ends no line.
    const decoded = decodeTransfer(`a =\r\nb${' '.repeat(300_000)}c`, 'quoted-printable');
    expect(decoded.length).toBe(300_004);
  });

  it('refuses archives with no boundary, a boundary that never occurs, or no HTML part as UNREADABLE', () => {
    const noBoundary = latin1(
      'MIME-Version: 1.0\nContent-Type: multipart/related\n\n--x\n\n<p>a</p>\n--x--\n',
    );
    expect(refused(() => readMhtml(noBoundary)).refusal).toMatchObject({ code: 'UNREADABLE' });
    const missing = latin1(
      'MIME-Version: 1.0\nContent-Type: multipart/related; boundary=zz\n\n--x\n\n<p>a</p>\n',
    );
    expect(refused(() => readMhtml(missing)).message).toContain('boundary never occurs');
    const noHtml = mhtml('', [
      { headers: ['Content-Type: image/png', 'Content-Transfer-Encoding: base64'], body: 'AAAA' },
    ]);
    expect(refused(() => readMhtml(noHtml)).message).toContain('no HTML part');
  });

  it('refuses a root part that names no charset and is not UTF-8, and honours one that does', () => {
    const body = '<p>caf\xe9</p>';
    const bare = mhtml('', [{ headers: ['Content-Type: text/html'], body }]);
    expect(refused(() => parseSnapshot(bare, null)).refusal.code).toBe('INVALID_UTF8');
    const named = mhtml('', [{ headers: ['Content-Type: text/html; charset=windows-1252'], body }]);
    expect(parseSnapshot(named, null).text).toBe('caf\u00e9');
  });
});

describe('single-file HTML snapshots', () => {
  it('reads a SingleFile capture with the URL its comment names and its hidden instruction flagged', () => {
    const doc = parseSnapshot(fixture('singlefile.html'), null);
    expect(doc).toMatchObject({
      format: 'snapshot',
      title: 'Incident review: the cairn outage',
      capturedUrl: 'https://blog.example.test/posts/cairn-incident',
      flags: ['INSTRUCTION_LIKE_CONTENT'],
    });
    expect(doc.text).toBe(
      '# Incident review: the cairn outage\n\nOn 4 March the trail index was unavailable for 42 minutes after a certificate expired.',
    );
    expect(doc.transformations[0]).toBe('SINGLE_FILE_HTML');
    expect(doc.instructionSpans.map((span) => span.kind)).toEqual(['HIDDEN_TEXT', 'HIDDEN_TEXT']);
  });

  it('reads the URL of a "saved from url" comment, and has none when the capture names none', () => {
    expect(singleFileUrl('<!-- saved from url=(0027)https://a.example.test/x?y -->')).toBe(
      'https://a.example.test/x?y',
    );
    const doc = parseSnapshot(
      latin1('<html><body><img src="data:image/png;base64,AA"><p>x</p></body></html>'),
      null,
    );
    expect(doc.text).toBe('x');
    expect('capturedUrl' in doc).toBe(false);
  });

  it('returns only absolute http(s) URLs without credentials as the captured URL', () => {
    expect(capturedUrlOf('https://a.example.test/p#frag')).toBe('https://a.example.test/p#frag');
    expect(capturedUrlOf('javascript:alert(1)')).toBeNull();
    expect(capturedUrlOf('file:///etc/passwd')).toBeNull();
    expect(capturedUrlOf('https://user:secret@a.example.test/')).toBeNull();
    expect(capturedUrlOf('/relative')).toBeNull();
    expect(capturedUrlOf(`https://a.example.test/${'a'.repeat(2100)}`)).toBeNull();
  });
});
