import type { Logger } from 'pino';
import type { Config } from '../config/config.ts';
import type { SettingsFragment } from '../config/settings.ts';
import type { Clock } from '../kernel/clock.ts';
import type { PublishedLimit } from '../kernel/limits.ts';
import type { Outbound } from '../net/outbound.ts';
import type { ParserPool } from '../parsing/index.ts';
import type { Database, Schema } from '../storage/database.ts';
import type { CliDoor } from './cli.ts';
import type { DoorContext, Doors, PageParts } from './doors.ts';
import type { Feed } from './feed.ts';
import type { Operation } from './operation.ts';
import type { SkillCatalog } from './skill-catalog.ts';

/**
 * The area contract (docs/architecture.md). An area is a folder under `domains/` whose
 * `index.ts` exports one `Area`: what it is (tables, error codes, operations) is static, so the
 * catalogue can list it without starting anything; `start` builds its services from the core.
 */

/** What every area is built from: the process's shared primitives, made once by `app.ts`. */
export interface Core {
  config: Config;
  database: Database;
  clock: Clock;
  logger: Logger;
  /** Signs cursors and bindings; stable across replicas. */
  secret: string;
  /** The one way out to the internet. */
  outbound: Outbound;
  /** The bounded worker pool for untrusted input. */
  parser: ParserPool;
  /** Every enforced limit, as `/v1/public/limits` publishes it. */
  limits: PublishedLimit[];
  /** What areas plug into each other, gathered from every area's `extensions`. */
  extensions: Extensions;
}

/**
 * The places where one area's behaviour is extended by another without either importing the
 * other's internals. The area that consumes an extension adds its key here (a `declare module`
 * block in its `index.ts`) and names its default under `extensionDefaults`; at most one area
 * provides each, under `extensions`. The framework knows none of them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the areas that consume extensions.
export interface Extensions {}

/** Something an area runs in the background, on every replica. */
export interface Worker {
  start(): void;
  /** Before the server waits for in-flight requests (a waiting call answers now). */
  drain?(): Promise<void> | void;
  /** After the server stopped taking requests. */
  stop(): Promise<void> | void;
}

export interface Started<S> {
  /** What operations reach through `ctx.services`, and transports through the app's services. */
  services: S;
  workers?: Worker[];
  /** What an idle agent can be woken for (feed.ts): MCP resources it can subscribe to. */
  feeds?: Feed[];
  /** The skills it serves through MCP's Skills extension (skill-catalog.ts); one area at most. */
  skillCatalog?: SkillCatalog;
}

export interface Area<S extends object = object> {
  /** The folder name; also how `/v1/public/errors` orders the area's codes. */
  name: string;
  /** Its drizzle tables (`tables.ts`): the schema type and drizzle-kit read them from here. */
  tables: Partial<Schema>;
  /** Its own error codes (`errors.ts`), declared with `declareErrors`. */
  errors: Record<string, unknown>;
  /** The tools it offers; the catalogue orders them. */
  // biome-ignore lint/suspicious/noExplicitAny: each area types its own services; the catalogue joins them.
  operations: ReadonlyArray<Operation<any>>;
  /** What it plugs into other areas. */
  extensions?: Partial<Extensions>;
  /** The extensions it consumes, each with what it does when no area provides it. */
  extensionDefaults?: Partial<Extensions>;
  /**
   * Why this deployment turned the area off (its tools stay in the catalogue, hidden from every
   * caller with this reason), or null when it is on.
   */
  switchedOff?(config: Config): string | null;
  /** Its console pages, owner `/v1` routes and parts of other areas' pages (doors.ts). */
  // biome-ignore lint/suspicious/noExplicitAny: each area names the services its doors use; the catalogue checks them.
  doors?: Doors<any>;
  /** Its operator commands on the `cairn` command line, and the services they act through (cli.ts). */
  // biome-ignore lint/suspicious/noExplicitAny: each area types its own CLI services; the catalogue checks them.
  cli?: CliDoor<any, any>;
  /** Its environment variables and the typed settings they become (config/settings.ts). */
  settings?: SettingsFragment;
  /**
   * The limits it enforces, as `/v1/public/limits` publishes them (the catalogue orders the rows
   * by LIMIT_ORDER); a function of the configuration where a number is the deployment's.
   */
  limits?: ReadonlyArray<PublishedLimit> | ((config: Config) => ReadonlyArray<PublishedLimit>);
  start(core: Core): Started<S> | Promise<Started<S>>;
}

/** The services of a list of areas, joined into one object type. */
export type ServicesOf<A extends ReadonlyArray<Area>> = UnionToIntersection<
  A[number] extends infer X ? (X extends Area<infer S> ? S : never) : never
>;
export type UnionToIntersection<U> = (U extends unknown ? (u: U) => void : never) extends (i: infer I) => void
  ? I
  : never;

/**
 * The extensions as the areas that are on provide them, over the defaults every area declares
 * for what it consumes. Two areas providing one, or a provided one nobody consumes, is a wiring
 * mistake caught at start.
 */
export function gatherExtensions(areas: ReadonlyArray<Area>, on: ReadonlyArray<Area>): Extensions {
  const merged: Record<string, unknown> = {};
  for (const area of areas) {
    for (const [key, value] of Object.entries(area.extensionDefaults ?? {})) {
      if (key in merged) throw new Error(`Extension ${key} has a default in two areas (${area.name}).`);
      merged[key] = value;
    }
  }
  const providedBy = new Map<string, string>();
  for (const area of on) {
    for (const [key, value] of Object.entries(area.extensions ?? {})) {
      const earlier = providedBy.get(key);
      if (earlier) throw new Error(`Extension ${key} is provided by both ${earlier} and ${area.name}.`);
      if (!(key in merged)) throw new Error(`Extension ${key} of ${area.name} has no area that consumes it.`);
      providedBy.set(key, area.name);
      merged[key] = value;
    }
  }
  return merged as unknown as Extensions;
}

/**
 * Starts every area in order and joins their services into one object. Two areas offering a
 * service under one name is a wiring mistake, caught at start.
 */
export async function startAreas<S>(
  areas: ReadonlyArray<Area>,
  core: Core,
): Promise<{ services: S; workers: Worker[]; feeds: Feed[]; skillCatalog: SkillCatalog | null }> {
  const services: Record<string, unknown> = {};
  const workers: Worker[] = [];
  const feeds: Feed[] = [];
  let skillCatalog: { area: string; catalog: SkillCatalog } | null = null;
  for (const area of areas) {
    const started = await area.start(core);
    for (const [key, value] of Object.entries(started.services)) {
      if (key in services)
        throw new Error(`Service ${key} of ${area.name} is already offered by another area.`);
      services[key] = value;
    }
    workers.push(...(started.workers ?? []));
    feeds.push(...(started.feeds ?? []));
    if (started.skillCatalog) {
      if (skillCatalog)
        throw new Error(
          `Skill catalogs from both ${skillCatalog.area} and ${area.name}: one area serves skills.`,
        );
      skillCatalog = { area: area.name, catalog: started.skillCatalog };
    }
  }
  return { services: services as S, workers, feeds, skillCatalog: skillCatalog?.catalog ?? null };
}

/** Every area's parts, slot by slot in catalogue order, each built with the door context. */
export function gatherParts(areas: ReadonlyArray<Area>, ctx: DoorContext<object>): PageParts {
  const parts: Record<string, unknown[]> = {};
  for (const area of areas) {
    for (const [slot, make] of Object.entries(area.doors?.parts ?? {})) {
      const made = (make as (c: DoorContext<object>) => unknown)(ctx);
      parts[slot] = [...(parts[slot] ?? []), made];
    }
  }
  return parts as unknown as PageParts;
}
