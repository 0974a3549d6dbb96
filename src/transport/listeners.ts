import type { Logger } from 'pino';
import { AREAS } from '../domains/catalog.ts';
import type { Area, Listener } from '../framework/index.ts';
import type { DoorContextOfAll } from './door-context.ts';

/** The listeners the areas' doors started, by name, and how to close them all. */
export interface Listening {
  ports: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

/**
 * Starts every area's own listeners (Doors.listeners) beside the HTTP server. One that fails to
 * start closes those already listening before the error goes up, so a refused start leaves no
 * port open.
 */
export async function startListeners(ctx: DoorContextOfAll, logger: Logger): Promise<Listening> {
  const started: Array<[string, Listener]> = [];
  const closeAll = () => Promise.all(started.map(([, l]) => l.close())).then(() => {});
  try {
    for (const area of AREAS as ReadonlyArray<Area>) {
      for (const [name, start] of Object.entries(area.doors?.listeners ?? {})) {
        const listener = await start(ctx, logger);
        if (listener) started.push([name, listener]);
      }
    }
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { ports: Object.fromEntries(started.map(([name, l]) => [name, l.port])), close: closeAll };
}
