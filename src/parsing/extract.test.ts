import { describe, expect, it } from 'vitest';
import { extractBodyJson, extractBodyTables } from './dispatch.ts';
import { MAX_TABLE_ROWS_TOTAL, MAX_TABLES } from './tables.ts';
import { type ParseInput, ParseRefusal } from './types.ts';

const input = (body: string, contentType = 'text/html'): ParseInput => ({
  bytes: new TextEncoder().encode(body),
  contentType,
  url: 'https://example.test/',
});

describe('extractBodyTables', () => {
  it('returns each visible table with caption, headers and rows', () => {
    const tables = extractBodyTables(
      input(`<table><caption>Heights</caption><thead><tr><th>Region</th><th>Height</th></tr></thead>
        <tbody><tr><td>Highlands</td><td> 1.5
         m</td></tr><tr><td>Pennines</td><td>1 m</td></tr></tbody></table>
        <table><tr><td>a</td><td>b</td></tr></table>
        <table style="display:none"><tr><td>hidden</td></tr></table>`),
    );
    expect(tables).toEqual([
      {
        index: 0,
        caption: 'Heights',
        headers: ['Region', 'Height'],
        rows: [
          ['Highlands', '1.5 m'],
          ['Pennines', '1 m'],
        ],
      },
      { index: 1, caption: null, headers: [], rows: [['a', 'b']] },
    ]);
  });

  it('takes headers from a first row made of <th> cells', () => {
    const [table] = extractBodyTables(
      input('<table><tr><th>k</th><th>v</th></tr><tr><td>1</td><td>2</td></tr></table>'),
    );
    expect(table).toMatchObject({ headers: ['k', 'v'], rows: [['1', '2']] });
  });

  it('bounds the number of tables and rows', () => {
    const many = '<table><tr><td>x</td></tr></table>'.repeat(MAX_TABLES + 10);
    expect(extractBodyTables(input(many))).toHaveLength(MAX_TABLES);
    const rows = `<table>${'<tr><td>r</td></tr>'.repeat(MAX_TABLE_ROWS_TOTAL + 50)}</table><table><tr><td>late</td></tr></table>`;
    const tables = extractBodyTables(input(rows));
    expect(tables.reduce((sum, table) => sum + table.rows.length, 0)).toBe(MAX_TABLE_ROWS_TOTAL);
  });

  it('finds no tables in non-HTML bodies', () => {
    expect(extractBodyTables(input('<table><tr><td>x</td></tr></table>', 'text/plain'))).toEqual([]);
    expect(extractBodyTables(input('{"table":1}', 'application/json'))).toEqual([]);
  });
});

describe('extractBodyJson', () => {
  it('returns a JSON body as one DOCUMENT', () => {
    expect(extractBodyJson(input('{"a":1}', 'application/json'))).toEqual([
      { source: 'DOCUMENT', index: 0, value: { a: 1 } },
    ]);
  });

  it('refuses an invalid JSON body', () => {
    expect(() => extractBodyJson(input('{oops', 'application/json'))).toThrow(ParseRefusal);
  });

  it('returns JSON-LD and embedded JSON scripts from HTML, skipping invalid ones', () => {
    const found = extractBodyJson(
      input(`<html><head>
        <script type="application/ld+json">{"@type":"Article","headline":"Cairns"}</script>
        <script type="application/ld+json">{broken</script>
        <script>var notJson = 1;</script>
        </head><body><script type="application/json" id="data"><!--{"items":[1,2]}--></script></body></html>`),
    );
    expect(found).toEqual([
      { source: 'JSON_LD', index: 0, value: { '@type': 'Article', headline: 'Cairns' } },
      { source: 'EMBEDDED', index: 1, value: { items: [1, 2] } },
    ]);
  });

  it('skips scripts over 1 MB', () => {
    const big = JSON.stringify({ pad: 'x'.repeat(1_000_001) });
    expect(extractBodyJson(input(`<script type="application/ld+json">${big}</script>`))).toEqual([]);
  });
});
