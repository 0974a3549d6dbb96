import { Param, sql } from 'drizzle-orm';
import { jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { statementTemplate } from './statement-template.ts';

/** A statement built once and filled per call: values go in as drizzle would have put them. */

const things = pgTable('things', {
  name: text('name'),
  at: timestamp('at', { withTimezone: true, mode: 'date' }),
  doc: jsonb('doc'),
});

// A column's value as drizzle's insert builder holds it (`values({...})`): a Param with the column
// as its encoder, here with a placeholder inside.
const template = statementTemplate(
  (_ex: unknown) =>
    sql`insert into ${things} values (${new Param(sql.placeholder('name'), things.name)}, ${new Param(
      sql.placeholder('at'),
      things.at,
    )}, ${new Param(sql.placeholder('doc'), things.doc)}, ${sql.placeholder('raw')})`,
);

describe('a statement template', () => {
  it('maps each value through its column, as drizzle does, and keeps the text', () => {
    const at = new Date('2026-11-28T10:00:00.000Z');
    const a = template(null, { name: "it's", at, doc: { a: [1, 'two'] }, raw: 7 });
    expect(a.params).toEqual(["it's", '2026-11-28T10:00:00.000Z', '{"a":[1,"two"]}', 7]);
    expect(a.text).toBe('insert into "things" values ($1, $2, $3, $4)');
    const b = template(null, { name: 'b', at, doc: [], raw: 'x' });
    expect(b.text).toBe(a.text);
    expect(b.params).toEqual(['b', '2026-11-28T10:00:00.000Z', '[]', 'x']);
  });

  it('leaves null as SQL null, never a column mapping of null (a JSON "null", a date that throws)', () => {
    expect(template(null, { name: null, at: null, doc: null, raw: null }).params).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });

  it('refuses a call that leaves a placeholder without a value', () => {
    expect(() => template(null, { name: 'n', at: null, raw: 1 })).toThrow(
      /no value for the placeholder "doc"/,
    );
  });
});
