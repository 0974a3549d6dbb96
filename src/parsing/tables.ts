/** HTML tables as rows of cell text, bounded so a hostile page cannot make the job unbounded. */
import { sanitiseDocument } from './html/sanitise.ts';
import { tableRows } from './html/text.ts';
import type { ExtractedTable } from './types.ts';

export const MAX_TABLES = 200;
export const MAX_TABLE_ROWS_TOTAL = 10_000;
const MAX_CELL_CHARS = 2_000;

const cellText = (cell: Element): string =>
  (cell.textContent ?? '').replace(/\s+/g, ' ').trim().slice(0, MAX_CELL_CHARS);

const cellsOf = (row: Element): Element[] =>
  Array.from(row.children).filter((cell) => /^t[hd]$/i.test(cell.tagName));

/**
 * The visible tables of a parsed HTML document (hidden ones are removed first, as for text), at
 * most MAX_TABLES tables and MAX_TABLE_ROWS_TOTAL rows across them. Headers come from `<thead>`
 * or from a first row made only of `<th>`.
 */
export function extractHtmlTables(document: Document): ExtractedTable[] {
  sanitiseDocument(document);
  const tables: ExtractedTable[] = [];
  let rowBudget = MAX_TABLE_ROWS_TOTAL;
  for (const table of Array.from(document.querySelectorAll('table'))) {
    if (tables.length >= MAX_TABLES || rowBudget <= 0) break;
    const caption = Array.from(table.children).find((child) => child.tagName.toLowerCase() === 'caption');
    const rows = tableRows(table);
    let headers: string[] = [];
    const first = rows[0];
    const firstCells = first ? cellsOf(first) : [];
    const inHead = first?.parentElement?.tagName.toLowerCase() === 'thead';
    if (
      first &&
      firstCells.length > 0 &&
      (inHead || firstCells.every((cell) => cell.tagName.toLowerCase() === 'th'))
    ) {
      headers = firstCells.map(cellText);
      rows.shift();
    }
    const body = rows.slice(0, rowBudget).map((row) => cellsOf(row).map(cellText));
    rowBudget -= body.length;
    tables.push({
      index: tables.length,
      caption: caption ? cellText(caption) || null : null,
      headers,
      rows: body,
    });
  }
  return tables;
}
