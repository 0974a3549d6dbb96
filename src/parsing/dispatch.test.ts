import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chooseFormat, parseBody } from './dispatch.ts';
import { type ParseInput, ParseRefusal } from './types.ts';

const fixture = (name: string): Uint8Array =>
  new Uint8Array(readFileSync(new URL(`../../test/fixtures/reading/${name}`, import.meta.url)));
const input = (bytes: Uint8Array | string, contentType: string): ParseInput => ({
  bytes: typeof bytes === 'string' ? new TextEncoder().encode(bytes) : bytes,
  contentType,
  url: 'https://example.test/doc',
});

async function refusal(promise: Promise<unknown>): Promise<ParseRefusal> {
  const error = await promise.then(
    () => null,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ParseRefusal);
  return error as ParseRefusal;
}

describe('chooseFormat', () => {
  it('trusts magic bytes over an uninformative or wrong Content-Type', () => {
    expect(chooseFormat(input(fixture('two-pages.pdf'), 'application/octet-stream')).format).toBe('pdf');
    expect(chooseFormat(input(fixture('two-pages.pdf'), '')).format).toBe('pdf');
    expect(chooseFormat(input(fixture('text.png'), 'application/octet-stream')).format).toBe('png');
    expect(chooseFormat(input(fixture('photo.jpg'), 'image/jpeg')).format).toBe('jpeg');
  });

  it('keeps HTML served as text/plain as text, and sniffs HTML with no type', () => {
    expect(chooseFormat(input('<html><body>x</body></html>', 'text/plain')).format).toBe('text');
    expect(chooseFormat(input('<!doctype html><p>x</p>', 'application/octet-stream')).format).toBe('html');
    expect(chooseFormat(input('<!doctype html><p>x</p>', '')).format).toBe('html');
  });

  it('reads JSON types, +json and text types', () => {
    expect(chooseFormat(input('{}', 'application/ld+json; charset=utf-8')).format).toBe('json');
    expect(chooseFormat(input('# x', 'text/markdown')).format).toBe('text');
    expect(chooseFormat(input('a,b', 'text/csv; charset=windows-1252'))).toEqual({
      format: 'text',
      charset: 'windows-1252',
    });
  });

  it.each([
    ['video/mp4', Uint8Array.from([0, 0, 0, 0x18, ...Buffer.from('ftypmp42')])],
    ['application/zip', Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0, 0])],
    ['font/woff2', Uint8Array.from([...Buffer.from('wOF2'), 0, 1, 0, 0])],
    ['application/octet-stream', Uint8Array.from([1, 2, 3, 0, 5, 6])],
    ['image/gif', Uint8Array.from([...Buffer.from('GIF89a'), 0, 0])],
  ])('refuses %s as UNSUPPORTED_CONTENT_TYPE naming the type', async (contentType, bytes) => {
    const error = await refusal(parseBody(input(bytes, contentType)));
    expect(error.reason).toBe('UNSUPPORTED_CONTENT_TYPE');
    expect(error.message).toContain(contentType);
    expect(error.details).toMatchObject({ content_type: contentType });
  });

  it('refuses a zip served as text/plain by what the bytes are', async () => {
    const zip = Uint8Array.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0, 0, 0, 8, 0, 0, 0, 0, 0]);
    const error = await refusal(parseBody(input(zip, 'text/plain')));
    expect(error.reason).toBe('UNSUPPORTED_CONTENT_TYPE');
    expect(error.details).toMatchObject({ content_type: 'text/plain', detected: 'zip' });
  });
});

describe('parseBody: text and JSON', () => {
  it('decodes text with its charset and keeps it as written', async () => {
    const bytes = Uint8Array.from([
      ...Buffer.from('caf'),
      0xe9,
      0x0d,
      0x0a,
      ...Buffer.from('# not a heading'),
    ]);
    const doc = await parseBody(input(bytes, 'text/markdown; charset=ISO-8859-1'));
    expect(doc).toMatchObject({ kind: 'text', text: 'café\n# not a heading', pages: [], surface: null });
  });

  it('pretty-prints JSON and refuses invalid JSON as UNREADABLE_CONTENT', async () => {
    const doc = await parseBody(input('{"a":[1,2],"b":"x"}', 'application/json'));
    expect(doc.kind).toBe('json');
    expect(doc.text).toBe('{\n  "a": [\n    1,\n    2\n  ],\n  "b": "x"\n}');
    const error = await refusal(parseBody(input('{"a":', 'application/json')));
    expect(error.reason).toBe('UNREADABLE_CONTENT');
  });
});

describe('parseBody: PDF', () => {
  it('reads each page after a [page N] marker and records page offsets', async () => {
    const doc = await parseBody(input(fixture('two-pages.pdf'), 'application/octet-stream'));
    expect(doc.kind).toBe('pdf');
    expect(doc.transformations).toEqual(['PDF_TEXT_BY_PAGE']);
    expect(doc.pages).toHaveLength(2);
    const [first, second] = doc.pages;
    expect(doc.text.slice(first!.offset).startsWith('[page 1]\n')).toBe(true);
    expect(doc.text.slice(second!.offset).startsWith('[page 2]\n')).toBe(true);
    const page1 = doc.text.slice(first!.offset, second!.offset);
    expect(page1).toContain('The quick brown fox jumps over the lazy dog near the riverbank.');
    expect(doc.text.slice(second!.offset)).toContain(
      'Second page states that cairns mark trails across open moorland.',
    );
  });

  it('refuses more than 40 pages with TOO_MANY_PAGES', async () => {
    const error = await refusal(parseBody(input(fixture('too-many-pages.pdf'), 'application/pdf')));
    expect(error.reason).toBe('TOO_MANY_PAGES');
    expect(error.details).toMatchObject({ pages: 41, limit: 40 });
  });

  it('refuses a page larger than the page pixel limit with TOO_MANY_PIXELS', async () => {
    const big = Buffer.from(fixture('two-pages.pdf'))
      .toString('latin1')
      .replaceAll('/MediaBox [0 0 612 792]', '/MediaBox [0 0 9000 9000]');
    const error = await refusal(parseBody(input(Buffer.from(big, 'latin1'), 'application/pdf')));
    expect(error.reason).toBe('TOO_MANY_PIXELS');
  });

  it('refuses a corrupt PDF as UNREADABLE_CONTENT', async () => {
    const error = await refusal(parseBody(input('%PDF-1.7\nnot really a pdf', 'application/pdf')));
    expect(error.reason).toBe('UNREADABLE_CONTENT');
  });
});
