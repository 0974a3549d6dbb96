import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { limitsOf } from '../framework/catalogue.ts';
import {
  DomainError,
  declareErrors,
  type ErrorCode,
  errorEnvelope,
  toErrorEnvelope,
} from '../kernel/errors.ts';
import {
  AREAS,
  describeErrors,
  LIMIT_ORDER,
  loadAppConfig,
  OPERATIONS,
  orderOperations,
  publishedLimits,
  TABLES,
  TOOL_ORDER,
} from './catalog.ts';

const SRC = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('the catalogue', () => {
  it('declares every error code once: a second declaration stops the start', () => {
    const codes = describeErrors().map((e) => e.code);
    expect(new Set(codes).size).toBe(codes.length);
    expect(() => declareErrors('elsewhere', { NOT_FOUND: describeErrors()[0] as never })).toThrow(
      /NOT_FOUND of elsewhere is already declared by general/,
    );
    expect(() =>
      declareErrors('elsewhere', {
        TASK_ALREADY_CLAIMED: {
          httpStatus: 409,
          retryable: false,
          otherReaders: 'ALLOWED',
          when: 'x',
          next: 'y',
        },
      }),
    ).toThrow(/already declared by campaigns/);
  });

  it('gives every refusal a next move: every code, however it is thrown', () => {
    for (const { code, next } of describeErrors()) {
      expect(next.length, code).toBeGreaterThan(10);
      const envelope = errorEnvelope(code as ErrorCode, 'refused');
      expect(envelope.error.next_action, code).toBe(next);
      const specific = toErrorEnvelope(
        new DomainError(code as ErrorCode, 'refused', {}, { next: 'Do this.' }),
        'r',
      );
      expect(specific.error.next_action, code).toBe('Do this.');
    }
  });

  it('declares every code the source throws or answers with', () => {
    const declared = new Set(describeErrors().map((e) => e.code));
    const used = new Map<string, string>();
    const thrown = /(?:DomainError|errorEnvelope|sendError)\(\s*(?:[\w.]+,\s*){0,2}'([A-Z][A-Z_]+)'/g;
    const refusal = /\bcode: '([A-Z][A-Z_]+)'/g;
    for (const file of sourceFiles(SRC)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(thrown)) used.set(m[1] as string, file);
      // Objects with a literal `code` are refusals where the file builds them as ErrorCodes.
      if (/\bErrorCode\b/.test(text)) for (const m of text.matchAll(refusal)) used.set(m[1] as string, file);
    }
    expect(used.size).toBeGreaterThan(20);
    const undeclared = [...used].filter(([code]) => !declared.has(code));
    expect(undeclared).toEqual([]);
  });

  it('publishes only codes some test names (issue 39 item 7: a listed code is one a test expects)', () => {
    const tests = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) return tests(full);
        return entry.name.endsWith('.test.ts') ? [full] : [];
      });
    const text = [...tests(SRC), ...tests(path.resolve(SRC, '../test'))]
      .map((f) => readFileSync(f, 'utf8'))
      .join('\n');
    // A proxy for "can be produced": the code appears quoted in a test, where it is asserted.
    const unnamed = describeErrors()
      .map((e) => e.code)
      .filter((code) => !text.includes(`'${code}'`) && !text.includes(`"${code}"`));
    expect(unnamed).toEqual([]);
  });

  it('lists every operation in TOOL_ORDER, once, in SPEC order', () => {
    const names = OPERATIONS.map((op) => op.name);
    expect(new Set(names).size).toBe(names.length);
    const ranks = names.map((name) => TOOL_ORDER.indexOf(name as (typeof TOOL_ORDER)[number]));
    expect(ranks.every((rank, i) => rank >= 0 && (i === 0 || rank > (ranks[i - 1] as number)))).toBe(true);
    const stray = { ...AREAS[1], operations: [{ ...OPERATIONS[0], name: 'not_in_spec' }] };
    expect(() => orderOperations([AREAS[0], stray, AREAS[2], AREAS[3]] as never)).toThrow(/not_in_spec/);
    const twice = { ...AREAS[1], operations: [...AREAS[1].operations, OPERATIONS[0]] };
    expect(() => orderOperations([AREAS[0], twice, AREAS[2], AREAS[3]] as never)).toThrow(/two operations/);
  });

  it('publishes every limit in LIMIT_ORDER, once: a row missing from it, or a listed row none publishes, stops the start', () => {
    const config = loadAppConfig({ CAIRN_DATA_DIR: '/nonexistent', CAIRN_MCP_RATE_LIMIT: '77' });
    const rows = publishedLimits(config);
    expect(rows.map((row) => row.area)).toEqual([...LIMIT_ORDER]);
    expect(rows.find((row) => row.area === 'MCP requests')?.values).toEqual({ per_minute: 77 });
    const stray = { ...AREAS[1], limits: [{ area: 'not listed', limit: 'none' }] };
    expect(() => limitsOf([...AREAS, stray], LIMIT_ORDER, config)).toThrow(/not listed/);
    const twice = { ...AREAS[1], limits: [{ area: 'Spend cap', limit: 'again' }] };
    expect(() => limitsOf([...AREAS, twice], LIMIT_ORDER, config)).toThrow(/Spend cap is published twice/);
    expect(() => limitsOf(AREAS, [...LIMIT_ORDER, 'nobody publishes this'], config)).toThrow(
      /No area publishes the limit nobody publishes this/,
    );
    const withoutArena = AREAS.filter((area) => area.name !== 'arena');
    expect(() => limitsOf(withoutArena, LIMIT_ORDER, config)).toThrow(/Arena workspace/);
  });

  it('opens the database with every table of every tables.ts', async () => {
    const files = sourceFiles(SRC).filter((f) => path.basename(f) === 'tables.ts');
    expect(files.length).toBeGreaterThanOrEqual(AREAS.length);
    const registered = new Set<unknown>(Object.values(TABLES));
    for (const file of files) {
      const tables = Object.entries(await import(file)).filter(([, value]) => is(value, PgTable));
      for (const [name, table] of tables) expect(registered.has(table), `${name} of ${file}`).toBe(true);
    }
  });
});
