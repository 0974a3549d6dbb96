import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { NavEntry } from '../web/console/layout.ts';
import type { DoorContext, PageParts, PartOf } from './door-context.ts';
import type { OwnerOperation } from './owner-operation.ts';

export type { DoorContext, OwnerOf, PageParts, PartOf } from './door-context.ts';

/**
 * An area's doors besides its tools (docs/architecture.md): console pages, owner `/v1` routes and
 * public routes. The area declares them in its `Area` (`doors`); the console shell and the HTTP
 * server register every area's in catalogue order and hold no line of their own for any area.
 */

export interface Doors<N = object> {
  /** Routes outside the console and the owner API (OAuth endpoints, public pages), each area in a scope of its own. */
  publicRoutes?(app: FastifyInstance, ctx: DoorContext<N>): Promise<void> | void;
  /**
   * Public documents and lists (`/v1/public/…`: boards, reports, intents), inside the one public
   * scope: no token, any origin where it says so, and one rate limit per client address shared
   * with the discovery documents.
   */
  publicApi?(app: FastifyInstance, ctx: DoorContext<N>): void;
  /** Console pages (HTML under `/console/…`), registered inside the console's session and CSRF scope. */
  pages?(app: FastifyInstance, ctx: DoorContext<N>): void;
  /** Its owner `/v1` operations, each defined once (owner-operation.ts) and served by one adapter. */
  ownerOperations?: ReadonlyArray<OwnerOperation<N>>;
  /** Its entries in the console's navigation bar. */
  nav?: ReadonlyArray<NavEntry>;
  /**
   * Doors of its own beside the HTTP server, by name (mail's `smtp` receiver): each starts once the
   * server is built, or answers null where the deployment leaves it off, and closes with the
   * server; the app names their ports (`App.ports`).
   */
  listeners?: Readonly<Record<string, (ctx: DoorContext<N>, logger: Logger) => Promise<Listener | null>>>;
  /** What it adds to other areas' console pages (the host area declares each slot in `PageParts`). */
  parts?: { [K in keyof PageParts]?: (ctx: DoorContext<N>) => PartOf<K> };
}

/** A listening door: the port it took (an ephemeral one when asked for 0) and how to close it. */
export interface Listener {
  port: number;
  close(): Promise<void>;
}
