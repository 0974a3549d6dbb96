import type { Redis } from 'ioredis';
import type { Config } from '../config/config.ts';
import { type AppServices, AREAS } from '../domains/catalog.ts';
import { gatherParts } from '../framework/area.ts';
import type { DoorContext } from '../framework/doors.ts';
import type { Clock } from '../kernel/clock.ts';
import { webContext } from '../web/console/context.ts';

/** What every area's doors are built from (http/server.ts). */
export interface DoorDeps {
  services: AppServices;
  config: Config;
  /** The resolved server secret: CSRF tokens are keyed with it. */
  secret: string;
  clock: Clock;
  /** Shared rate-limit counters; null counts per process. */
  redis: Redis | null;
}

/** What every door is handed: every service, the console's shared rules, the parts, the config. */
export type DoorContextOfAll = DoorContext<AppServices>;

export function buildDoorContext(deps: DoorDeps): DoorContextOfAll {
  const ctx: DoorContextOfAll = {
    ...deps.services,
    ...webContext(deps.secret, deps.config.baseUrl, deps.clock),
    config: deps.config,
    secret: deps.secret,
    parts: {} as DoorContextOfAll['parts'],
    redis: deps.redis,
  };
  ctx.parts = gatherParts(AREAS, ctx);
  return ctx;
}
