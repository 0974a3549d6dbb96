/**
 * The lab: the challenge's simulated sources, served inside the run and nowhere else. Every
 * answer says SIMULATED; nothing here reaches the network (the sources are part of the package).
 */
import { DomainError } from '../../../kernel/errors.ts';
import type { LoadedChallenge, SimulatedSource } from '../challenges/index.ts';
import { allowedAlternatives, type RunRow } from './access.ts';
import { RUN_LIMITS } from './limits.ts';

const SIMULATED = {
  label: 'SIMULATED' as const,
  note: 'A simulated source of this Arena challenge: fictional, served only inside the run, not from the web.',
};
const SNIPPET_CHARS = 240;

function sourceOf(
  run: RunRow,
  challenge: LoadedChallenge,
  ref: { sourceId?: string | undefined; url?: string | undefined },
) {
  for (const [id, source] of challenge.sources) {
    if (id === ref.sourceId || (ref.url !== undefined && source.url === ref.url)) return { id, source };
  }
  throw new DomainError(
    'NOT_FOUND',
    'No such simulated source in this run.',
    { run_id: run.id, source_id: ref.sourceId ?? null, url: ref.url ?? null },
    {
      alternatives: allowedAlternatives(challenge.challenge.allowed_tools, [
        { tool: 'lab.search', action: 'Find the sources this run has.', arguments: { run_id: run.id } },
      ]),
    },
  );
}

const describe = (id: string, s: SimulatedSource) => ({
  source_id: id,
  title: s.title,
  url: s.url,
  kind: s.kind,
});

/** Sources whose text has every word of the query (case-insensitive), each with a snippet; all of them for an empty query. */
export function labSearch(run: RunRow, challenge: LoadedChallenge, query: string, limit: number) {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const hits = [];
  for (const [id, s] of challenge.sources) {
    const haystack = `${s.title}\n${s.text}`.toLowerCase();
    if (!words.every((w) => haystack.includes(w))) continue;
    const at = words.length === 0 ? 0 : Math.max(0, s.text.toLowerCase().indexOf(words[0] ?? ''));
    const start = Math.max(0, at - SNIPPET_CHARS / 2);
    hits.push({ ...describe(id, s), snippet: s.text.slice(start, start + SNIPPET_CHARS), ...SIMULATED });
  }
  return {
    run_id: run.id,
    query,
    results: hits.slice(0, limit),
    ...SIMULATED,
    next:
      hits.length > 0
        ? 'Read a source whole with lab.fetch (source_id).'
        : 'Try other words, or an empty query to list every source.',
  };
}

export function labFetch(
  run: RunRow,
  challenge: LoadedChallenge,
  ref: {
    sourceId?: string | undefined;
    url?: string | undefined;
    offset?: number | undefined;
    maxChars?: number | undefined;
  },
) {
  const { id, source } = sourceOf(run, challenge, ref);
  const offset = Math.min(ref.offset ?? 0, source.text.length);
  const end = Math.min(offset + (ref.maxChars ?? RUN_LIMITS.readDefaultChars), source.text.length);
  return {
    run_id: run.id,
    ...describe(id, source),
    text: source.text.slice(offset, end),
    range: {
      offset,
      end,
      total_chars: source.text.length,
      next_offset: end < source.text.length ? end : null,
    },
    ...SIMULATED,
    next:
      end < source.text.length
        ? `More follows: call lab.fetch with offset ${end}.`
        : 'Use what you need of it in your result and hand that in with artifact_submit.',
  };
}

/** A TABLE source (CSV: a header row, then rows; quoted fields as RFC 4180) as columns and rows. */
export function labTable(
  run: RunRow,
  challenge: LoadedChallenge,
  ref: { sourceId?: string | undefined; url?: string | undefined },
) {
  const { id, source } = sourceOf(run, challenge, ref);
  if (source.kind !== 'TABLE') {
    throw new DomainError(
      'VALIDATION_FAILED',
      `Source ${id} is ${source.kind}, not a TABLE.`,
      { source_id: id, kind: source.kind },
      {
        alternatives: allowedAlternatives(challenge.challenge.allowed_tools, [
          { tool: 'lab.fetch', action: 'Read it as text.', arguments: { run_id: run.id, source_id: id } },
        ]),
      },
    );
  }
  const [columns = [], ...rows] = parseCsv(source.text);
  return {
    run_id: run.id,
    ...describe(id, source),
    columns,
    rows,
    ...SIMULATED,
    next: 'Use the rows in your result and hand it in with artifact_submit.',
  };
}

function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else field += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ',') {
      row.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      field = '';
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
    } else field += ch;
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  return rows;
}
