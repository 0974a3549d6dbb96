/**
 * The artifact checks of the verifier: JSON comparisons and verbatim quotations. Each takes
 * the artifact's text and returns points with a note; a missing, oversized or malformed
 * artifact earns 0 with a note saying why, never an exception.
 */
import type { Check } from './schema.ts';
import { CHALLENGE_LIMITS } from './schema.ts';
import type { SimulatedSource } from './types.ts';

/** A line's outcome; `'all'` is every point of the line (pass/fail checks need not know its weight). */
export interface Outcome {
  points: number | 'all';
  note: string;
}

type CheckOf<T extends Check['type']> = Extract<Check, { type: T }>;

/** Artifacts larger than this are not parsed (the run's own caps are lower). */
const MAX_ARTIFACT_CHARS = 1024 * 1024;

export type Parsed = { ok: true; value: unknown } | { ok: false; note: string };

/** Parses a named artifact as JSON, or says why it cannot be read. */
export function parseArtifact(artifacts: Map<string, string>, name: string): Parsed {
  const text = artifacts.get(name);
  if (text === undefined) return { ok: false, note: `artifact '${name}' was not submitted` };
  if (text.length > MAX_ARTIFACT_CHARS) return { ok: false, note: `artifact '${name}' is too large to read` };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, note: `artifact '${name}' is not valid JSON` };
  }
}

/** RFC 6901 lookup; undefined when the pointer names nothing. */
export function resolvePointer(value: unknown, pointer: string): unknown {
  if (pointer === '') return value;
  let current = value;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(current)) {
      if (!/^(0|[1-9][0-9]*)$/.test(key)) return undefined;
      current = current[Number(key)];
    } else if (current !== null && typeof current === 'object' && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return current;
}

/** JSON equality: object key order ignored, array order kept, numbers exact, strings trimmed. */
export function jsonEqual(a: unknown, b: unknown, ignoreCase = false): boolean {
  if (typeof a === 'string' && typeof b === 'string') {
    const [x, y] = [a.trim(), b.trim()];
    return ignoreCase ? x.toLowerCase() === y.toLowerCase() : x === y;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i], ignoreCase));
  }
  if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.length !== kb.length) return false;
    return ka.every(
      (key) =>
        Object.hasOwn(b, key) &&
        jsonEqual((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key], ignoreCase),
    );
  }
  return a === b;
}

/** Collapses every run of whitespace to one space and trims, after Unicode NFC. */
export function normalizeSpace(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim();
}

export function checkQuote(
  check: CheckOf<'quote_in_source'>,
  artifacts: Map<string, string>,
  sources: Map<string, SimulatedSource>,
): Outcome {
  const parsed = parseArtifact(artifacts, check.artifact);
  if (!parsed.ok) return { points: 0, note: parsed.note };
  const body = parsed.value as { quote?: unknown; source_id?: unknown } | null;
  if (
    body === null ||
    typeof body !== 'object' ||
    typeof body.quote !== 'string' ||
    typeof body.source_id !== 'string'
  ) {
    return { points: 0, note: `artifact '${check.artifact}' needs string fields quote and source_id` };
  }
  const source = sources.get(body.source_id);
  if (!source) return { points: 0, note: `no simulated source has the id '${body.source_id.slice(0, 64)}'` };
  const quote = normalizeSpace(body.quote);
  const min = check.min_chars ?? CHALLENGE_LIMITS.minQuoteChars;
  if ([...quote].length < min) return { points: 0, note: `the quotation is shorter than ${min} characters` };
  if (!normalizeSpace(source.text).includes(quote)) {
    return { points: 0, note: `the quotation is not verbatim in source '${body.source_id}'` };
  }
  if (!quote.toLowerCase().includes(check.must_contain.toLowerCase())) {
    return { points: 0, note: 'the quotation is verbatim but does not state the fact asked for' };
  }
  return { points: 'all', note: `verbatim quotation from '${body.source_id}'` };
}

export function checkJsonEquals(
  check: CheckOf<'json_equals'>,
  artifacts: Map<string, string>,
  max: number,
): Outcome {
  const parsed = parseArtifact(artifacts, check.artifact);
  if (!parsed.ok) return { points: 0, note: parsed.note };
  if (jsonEqual(parsed.value, check.expected)) return { points: max, note: 'equal to the expected value' };
  if (check.partial !== 'rows' || !Array.isArray(check.expected) || !Array.isArray(parsed.value)) {
    return { points: 0, note: 'not equal to the expected value' };
  }
  // Each expected row is matched by at most one submitted row, in any order; surplus rows count
  // against the score, so submitting every guess cannot earn the points of the right ones.
  const unused = [...parsed.value];
  let matched = 0;
  for (const row of check.expected) {
    const at = unused.findIndex((candidate) => jsonEqual(candidate, row));
    if (at >= 0) {
      matched++;
      unused.splice(at, 1);
    }
  }
  const rows = Math.max(check.expected.length, parsed.value.length);
  const points = rows === 0 ? 0 : Math.floor((max * matched) / rows);
  return {
    points,
    note: `${matched} of ${check.expected.length} rows match (${parsed.value.length} submitted)`,
  };
}

export function checkFieldEquals(
  check: CheckOf<'json_field_equals'>,
  artifacts: Map<string, string>,
): Outcome {
  const parsed = parseArtifact(artifacts, check.artifact);
  if (!parsed.ok) return { points: 0, note: parsed.note };
  const value = resolvePointer(parsed.value, check.pointer);
  if (value === undefined) return { points: 0, note: `no field at '${check.pointer}'` };
  if (!jsonEqual(value, check.value, check.ignore_case ?? false)) {
    return { points: 0, note: `the field at '${check.pointer}' is not the expected value` };
  }
  return { points: 'all', note: `the field at '${check.pointer}' is right` };
}

export function checkMentionsAll(
  check: CheckOf<'json_field_mentions_all'>,
  artifacts: Map<string, string>,
): Outcome {
  const parsed = parseArtifact(artifacts, check.artifact);
  if (!parsed.ok) return { points: 0, note: parsed.note };
  const value = resolvePointer(parsed.value, check.pointer);
  if (typeof value !== 'string') return { points: 0, note: `no text field at '${check.pointer}'` };
  const text = value.toLowerCase();
  const missing = check.tokens.filter((token) => !text.includes(token.toLowerCase()));
  if (missing.length > 0)
    return { points: 0, note: `the field at '${check.pointer}' does not mention: ${missing.join(', ')}` };
  return {
    points: 'all',
    note: `the field at '${check.pointer}' mentions all of ${check.tokens.join(', ')}`,
  };
}
