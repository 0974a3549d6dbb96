import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { WebContext } from '../web/console/context.ts';
import type { NavEntry } from '../web/console/layout.ts';

/**
 * An area's doors besides its tools (docs/architecture.md): console pages, owner `/v1` routes and
 * public routes. The area declares them in its `Area` (`doors`); the console shell and the HTTP
 * server register every area's in catalogue order and hold no line of their own for any area.
 */

/**
 * What a door is handed: the services it uses (`N`, named by the area and checked against the
 * joined services by the catalogue), the console's shared rules (CSRF, cookies, base URL, clock),
 * the config, the parts other areas add to its pages, the server secret (cursors) and the
 * shared rate-limit counters.
 */
export type DoorContext<N> = N &
  WebContext & {
    config: Config;
    secret: string;
    parts: PageParts;
    /** Shared rate-limit counters across replicas (CAIRN_REDIS_URL); null counts per process. */
    redis: Redis | null;
  };

/** The owner of an owner-API request (session or owner token); throws UNAUTHENTICATED without one. */
export type OwnerOf = (req: { owner?: { id: string } | undefined }) => string;

export interface Doors<N = object> {
  /** Routes outside the console and the owner API (OAuth endpoints, public pages), each area in a scope of its own. */
  publicRoutes?(app: FastifyInstance, ctx: DoorContext<N>): Promise<void> | void;
  /** Console pages (HTML under `/console/…`), registered inside the console's session and CSRF scope. */
  pages?(app: FastifyInstance, ctx: DoorContext<N>): void;
  /** Owner `/v1/…` routes, inside the owner API scope (session or owner token, JSON only, the envelope). */
  ownerApi?(api: FastifyInstance, ctx: DoorContext<N>, ownerOf: OwnerOf): Promise<void> | void;
  /** Its entries in the console's navigation bar. */
  nav?: ReadonlyArray<NavEntry>;
  /** What it adds to other areas' console pages (the host area declares each slot in `PageParts`). */
  parts?: { [K in keyof PageParts]?: (ctx: DoorContext<N>) => PartOf<K> };
}

/**
 * The slots of console pages that other areas fill: the host area adds its slot here (a
 * `declare module` block) as an array of what each part gives, and reads `ctx.parts[slot]`;
 * parts come in catalogue order. The framework knows no slot.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the areas whose pages have slots.
export interface PageParts {}

/** One part of slot `K`. */
export type PartOf<K extends keyof PageParts> =
  NonNullable<PageParts[K]> extends ReadonlyArray<infer P> ? P : never;
