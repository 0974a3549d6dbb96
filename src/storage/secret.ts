import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import type { Clock } from '../kernel/clock.ts';
import type { Database } from './database.ts';
import { serverSettings } from './tables.ts';

const SECRET_FILE = 'secret';
const SETTING_KEY = 'signing_secret';

/**
 * The server's signing secret when CAIRN_SECRET is not set: the key for signed cursors and
 * sealed short-lived secrets (such as the refresh-retry answer) of the areas that use them.
 * Embedded: generated once and kept in `<data dir>/secret` (mode 0600).
 * PostgreSQL: generated once and kept in the database, so every replica signs alike.
 */
export async function resolveSecret(
  configured: string | undefined,
  database: Database,
  dataDir: string,
  clock: Clock,
): Promise<string> {
  if (configured) return configured;
  if (database.kind === 'pglite') return fileSecret(path.join(dataDir, SECRET_FILE));
  const fresh = randomBytes(32).toString('base64url');
  await database.db
    .insert(serverSettings)
    .values({ key: SETTING_KEY, value: fresh, createdAt: clock.now() })
    .onConflictDoNothing();
  const [row] = await database.db.select().from(serverSettings).where(eq(serverSettings.key, SETTING_KEY));
  if (!row) throw new Error('signing secret could not be stored');
  return row.value;
}

function fileSecret(file: string): string {
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const fresh = randomBytes(32).toString('base64url');
  writeFileSync(file, `${fresh}\n`, { mode: 0o600 });
  return fresh;
}
