import { customType, timestamp } from 'drizzle-orm/pg-core';

/** Column kinds every area's tables share. */

/** A timestamptz column read as a Date (every table's timestamps). */
export const ts = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Raw bytes (PostgreSQL bytea), as Node Buffers. */
export const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => (Buffer.isBuffer(value) ? value : Buffer.from(value)),
});
