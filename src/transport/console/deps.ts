import type { Config } from '../../config/config.ts';
import { type AppServices, AREAS } from '../../domains/catalog.ts';
import { gatherParts } from '../../framework/area.ts';
import type { DoorContext } from '../../framework/doors.ts';
import type { Clock } from '../../kernel/clock.ts';
import { webContext } from '../../web/console/context.ts';
import type { BodyDecoder } from '../../web/http/large-body.ts';

/** What the console shell is built from (http/server.ts). */
export interface ConsoleDeps {
  services: AppServices;
  config: Config;
  /** The resolved server secret: CSRF tokens are keyed with it. */
  secret: string;
  clock: Clock;
  /** Reads large request bodies off the main thread (the parser pool). */
  bodies: BodyDecoder;
}

/** What every console route is handed: every service, the console's shared rules, the parts. */
export type ConsoleContext = DoorContext<AppServices>;

export function buildContext(deps: ConsoleDeps): ConsoleContext {
  const ctx: ConsoleContext = {
    ...deps.services,
    ...webContext(deps.secret, deps.config.baseUrl, deps.clock),
    config: deps.config,
    secret: deps.secret,
    parts: {} as ConsoleContext['parts'],
  };
  ctx.parts = gatherParts(AREAS, ctx);
  return ctx;
}
