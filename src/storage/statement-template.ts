import { createHash } from 'node:crypto';
import { Param, Placeholder, SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

/** A statement built to its text, with `$n` parameters, and their values. */
export interface BuiltStatement {
  readonly text: string;
  readonly params: readonly unknown[];
}

/** What a transaction's opening and closing take (transaction-end.ts): drizzle's SQL, or one built. */
export type Statement = SQL | BuiltStatement;

const dialect = new PgDialect();

/**
 * A statement built by drizzle once, with `sql.placeholder`s where its values go, and filled in
 * for each call: the text is the same every time, and only the values are mapped, as drizzle maps
 * them. A value its builder holds for a column (an insert's or an update's) goes through that
 * column's mapping (JSON written out, a Date as ISO text), except that null stays null; any other
 * placeholder (one compared in a where clause) goes to the driver as given, as in drizzle's own
 * prepared statements. For the statements of a busy call sent with a transaction's BEGIN or
 * COMMIT (pg-transaction.ts), which drizzle would otherwise build from scratch on every call:
 * about a tenth of the server's time under `message_append` (docs/performance.md).
 *
 * `build` runs on the first call, on that call's executor; only its text and placeholders are
 * kept, so it must give the same statement on any executor and for any values.
 */
export function statementTemplate<Ex>(
  build: (ex: Ex) => SQL,
): (ex: Ex, values: Record<string, unknown>) => BuiltStatement {
  let built: { sql: string; params: unknown[] } | undefined;
  return (ex, values) => {
    built ??= dialect.sqlToQuery(build(ex));
    return { text: built.sql, params: built.params.map((p) => filled(p, values)) };
  };
}

function filled(param: unknown, values: Record<string, unknown>): unknown {
  if (param instanceof Placeholder) return valueFor(param, values);
  if (param instanceof Param && param.value instanceof Placeholder) {
    const value = valueFor(param.value, values);
    return value === null ? null : param.encoder.mapToDriverValue(value);
  }
  return param;
}

function valueFor(placeholder: Placeholder, values: Record<string, unknown>): unknown {
  const value = values[placeholder.name];
  if (value === undefined) throw new Error(`no value for the placeholder "${placeholder.name}"`);
  return value;
}

/** A statement as text and values: drizzle's SQL built here, a template's as it is. */
export function built(statement: Statement): BuiltStatement {
  if (!(statement instanceof SQL)) return statement;
  const query = dialect.sqlToQuery(statement);
  return { text: query.sql, params: query.params };
}

const namesByPrefix = new Map<string, Map<string, string>>();
let namedTexts = 0;
/** Past this many texts, new ones run unnamed: a guard against a caller whose text varies. */
const MAX_NAMED_TEXTS = 256;

/**
 * The name a statement's text is prepared under: `prefix` and a hash of the text, the same on every
 * connection; undefined (run unnamed) once MAX_NAMED_TEXTS texts have names. Each prefix is one
 * way of preparing (pg's own queries, or storage/pg-batch.ts), so the two never share a name.
 */
export function statementName(text: string, prefix: string): string | undefined {
  let names = namesByPrefix.get(prefix);
  if (!names) {
    names = new Map();
    namesByPrefix.set(prefix, names);
  }
  let name = names.get(text);
  if (!name && namedTexts < MAX_NAMED_TEXTS) {
    name = `${prefix}${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
    namedTexts++;
  }
  return name;
}
