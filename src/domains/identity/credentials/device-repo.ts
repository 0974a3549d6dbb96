import { and, eq, gt } from 'drizzle-orm';
import type { Executor } from '../../../storage/database.ts';
import { deviceAuthorizations } from './tables.ts';

/** SQL for RFC 8628 device authorizations. */

export type DeviceRow = typeof deviceAuthorizations.$inferSelect;

/** Inserts a pending authorization; false when its user code collides with another pending one. */
export async function insertDevice(
  ex: Executor,
  row: typeof deviceAuthorizations.$inferInsert,
): Promise<boolean> {
  const rows = await ex
    .insert(deviceAuthorizations)
    .values(row)
    .onConflictDoNothing()
    .returning({ id: deviceAuthorizations.id });
  return rows.length === 1;
}

/** The pending, unexpired authorization with this user code, locked when asked (for the decision). */
export async function findPendingByUserCode(ex: Executor, userCode: string, now: Date, lock = false) {
  const query = ex
    .select()
    .from(deviceAuthorizations)
    .where(
      and(
        eq(deviceAuthorizations.userCode, userCode),
        eq(deviceAuthorizations.status, 'PENDING'),
        gt(deviceAuthorizations.expiresAt, now),
      ),
    );
  const [row] = lock ? await query.for('update') : await query;
  return row ?? null;
}

/** The authorization behind a device code, locked: concurrent polls are decided one at a time. */
export async function lockByDeviceCode(ex: Executor, deviceCodeHash: string): Promise<DeviceRow | null> {
  const [row] = await ex
    .select()
    .from(deviceAuthorizations)
    .where(eq(deviceAuthorizations.deviceCodeHash, deviceCodeHash))
    .for('update');
  return row ?? null;
}

export async function updateDevice(
  ex: Executor,
  id: string,
  set: Partial<typeof deviceAuthorizations.$inferInsert>,
) {
  await ex.update(deviceAuthorizations).set(set).where(eq(deviceAuthorizations.id, id));
}
