import { pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { ts } from '../storage/columns.ts';

/** The operation runner's idempotency records (DESIGN.md convention 7). */

/**
 * First results of mutating tools (DESIGN.md convention 7). The row is inserted in the same
 * transaction as the mutation, so a result exists exactly when its effect does.
 */
export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    agentId: text('agent_id').notNull(),
    operation: text('operation').notNull(),
    key: text('key').notNull(),
    argsHash: text('args_hash').notNull(),
    /**
     * The first result as the JSON text it was answered with: text, not jsonb, because jsonb
     * reorders keys and a replay must be byte-identical. Null only inside the creating
     * transaction; others never see it so.
     */
    result: text('result'),
    createdAt: ts('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.operation, t.key] })],
);
