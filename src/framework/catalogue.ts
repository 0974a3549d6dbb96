import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import type { Config } from '../config/config.ts';
import { describeErrorCatalog } from '../kernel/errors.ts';
import type { PublishedLimit } from '../kernel/limits.ts';
import type { Schema } from '../storage/database.ts';
import * as serverTables from '../storage/tables.ts';
import type { Area } from './area.ts';
import type { AnyCommand, CliCore } from './cli.ts';
import { isForm, joinForms } from './forms.ts';
import type { Operation } from './operation.ts';
import * as operationTables from './tables.ts';

/**
 * What the catalogue (`domains/catalog.ts`) derives from its list of areas: the operations in
 * SPEC's order, the published limits in the catalogue's, the tables, the error reference and
 * what a deployment has switched off. The framework knows no area; the lists are the catalogue's.
 */

/**
 * The areas' operations in `order`; a tool missing from it, or offered twice, stops the start.
 * An operation marked as a form of another area's tool (`formKey`) is joined with it (forms.ts).
 */
export function orderOperations<S>(
  areas: ReadonlyArray<Area>,
  order: ReadonlyArray<string>,
): Array<Operation<S>> {
  const all = areas.flatMap((area) => area.operations as ReadonlyArray<Operation<S>>);
  const forms = all.filter(isForm);
  const ops = all
    .filter((op) => !isForm(op))
    .map((op) => {
      const form = forms.find((f) => f.name === op.name);
      return form ? (joinForms(op, form) as Operation<S>) : op;
    });
  const rank = new Map<string, number>(order.map((name, i) => [name, i]));
  const seen = new Set<string>();
  for (const form of forms) {
    if (!ops.some((op) => op.name === form.name))
      throw new Error(`Tool form ${form.name} has no tool to join.`);
  }
  for (const op of ops) {
    if (!rank.has(op.name)) throw new Error(`Tool ${op.name} is not in the catalogue's TOOL_ORDER.`);
    if (seen.has(op.name)) throw new Error(`Tool ${op.name} is offered by two operations.`);
    seen.add(op.name);
  }
  return ops.sort((a, b) => (rank.get(a.name) ?? 0) - (rank.get(b.name) ?? 0));
}

/** The areas this deployment has on: one switched off plugs nothing into the others (extensions). */
export function areasOn(areas: ReadonlyArray<Area>, config: Config): ReadonlyArray<Area> {
  return areas.filter((area) => !area.switchedOff?.(config));
}

/**
 * The operations as this deployment offers them: those of an area it switched off (CAIRN_SKILLS)
 * stay listed, so capabilities_describe can say why, but no caller sees or calls them.
 */
export function operationsFor<S>(
  areas: ReadonlyArray<Area>,
  operations: Array<Operation<S>>,
  config: Config,
): Array<Operation<S>> {
  const off = new Map<string, string>();
  for (const area of areas) {
    const why = area.switchedOff?.(config);
    if (why) for (const op of area.operations) off.set(op.name, why);
  }
  return operations.map((op) => {
    const why = off.get(op.name);
    return why ? { ...op, visibility: () => ({ visible: false, why }) } : op;
  });
}

/** Every table: the server's, the framework's and each area's, the schema a database opens with. */
export function tablesOf(areas: ReadonlyArray<Area>): Schema {
  return Object.fromEntries(
    [serverTables, operationTables, ...areas.map((a) => a.tables)]
      .flatMap((tables) => Object.entries(tables))
      .filter(([, value]) => is(value, PgTable)),
  ) as Schema;
}

/** The reference at `/v1/public/errors`: the general codes, then each area's, in the areas' order. */
export function errorsOf(areas: ReadonlyArray<Area>) {
  return describeErrorCatalog(areas.map((a) => a.name));
}

/**
 * The areas' published limits (`/v1/public/limits`, `cairn://limits`) in `order`, by each row's
 * `area`: a row missing from it or published twice, or a listed row no area publishes, stops the start.
 */
export function limitsOf(
  areas: ReadonlyArray<Area>,
  order: ReadonlyArray<string>,
  config: Config,
): PublishedLimit[] {
  const rows = areas.flatMap((area) =>
    typeof area.limits === 'function' ? area.limits(config) : (area.limits ?? []),
  );
  const rank = new Map<string, number>(order.map((name, i) => [name, i]));
  const seen = new Set<string>();
  for (const row of rows) {
    if (!rank.has(row.area)) throw new Error(`Limit ${row.area} is not in the catalogue's LIMIT_ORDER.`);
    if (seen.has(row.area)) throw new Error(`Limit ${row.area} is published twice.`);
    seen.add(row.area);
  }
  const missing = order.filter((name) => !seen.has(name));
  if (missing.length > 0)
    throw new Error(`No area publishes the limit ${missing.join(', ')} of LIMIT_ORDER.`);
  return rows.sort((a, b) => (rank.get(a.area) ?? 0) - (rank.get(b.area) ?? 0));
}

/** Every area's operator commands by name, in the areas' order; a name two areas offer stops the start. */
export function commandsOf(areas: ReadonlyArray<Area>): Readonly<Record<string, AnyCommand>> {
  const all: Record<string, AnyCommand> = {};
  for (const area of areas) {
    for (const [name, command] of Object.entries(area.cli?.commands ?? {})) {
      if (name in all) throw new Error(`The command "cairn ${name}" is offered twice (${area.name}).`);
      all[name] = command;
    }
  }
  return all;
}

/** Every area's CLI services for one command's run; a name two areas build stops it. */
export function cliServicesOf(areas: ReadonlyArray<Area>, core: CliCore): object {
  const all: Record<string, unknown> = {};
  for (const area of areas) {
    for (const [name, service] of Object.entries(area.cli?.services(core) ?? {})) {
      if (name in all) throw new Error(`The CLI service ${name} is built by two areas (${area.name}).`);
      all[name] = service;
    }
  }
  return all;
}
