import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import type { WebContext } from '../web/console/context.ts';

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
