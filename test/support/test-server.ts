import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pino, { type Logger } from 'pino';
import { type App, createApp } from '../../src/app.ts';
import { loadAppConfig } from '../../src/domains/catalog.ts';
import type { Clock } from '../../src/kernel/clock.ts';
import type { Database } from '../../src/storage/database.ts';
import { openTestDatabase } from './database.ts';

export interface TestServer {
  url: string;
  app: App;
  database: Database;
  close(): Promise<void>;
}

export interface TestServerOptions {
  clock?: Clock;
  env?: Record<string, string>;
  /** Serve from an already open database (a second replica over the same data). */
  database?: Database;
  /** Where logs go; silent by default. */
  logger?: Logger;
}

/** A free loopback port, so the base URL is known before the app builds its documents. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Starts the real server (real database, real HTTP) on an ephemeral loopback port. */
export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'cairn-test-'));
  const config = loadAppConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    CAIRN_DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    // Every answer of the suite is held to its tool's declared output schema.
    CAIRN_CHECK_OUTPUTS: 'true',
    ...opts.env,
  });
  const ownsDatabase = !opts.database;
  const database = opts.database ?? (await openTestDatabase());
  const app = await createApp(config, database, {
    ...(opts.clock ? { clock: opts.clock } : {}),
    logger: opts.logger ?? pino({ level: 'silent' }),
  });
  await app.http.listen({ port, host: '127.0.0.1' });
  return {
    url: config.baseUrl,
    app,
    database,
    close: async () => {
      // As `cairn serve` does: in-flight requests get a moment, then their connections are cut.
      const force = setTimeout(() => app.http.server.closeAllConnections(), 500);
      await app.http.close();
      clearTimeout(force);
      if (ownsDatabase) await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
