import { index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../../storage/columns.ts';
import { agentRef, ownerRef } from '../../identity/tables.ts';
import { campaigns, tasks } from '../tables.ts';

/**
 * Public task boards (SPEC "What the service does" 8, Public board and entry; docs/boards.md): an
 * owner lists some of a campaign's open-pickup tasks under a public slug. Each listed task has an
 * opaque `task_ref`, the only handle the public gets: never the task or campaign id.
 */

export const boards = pgTable(
  'boards',
  {
    slug: text('slug').primaryKey(),
    ownerId: ownerRef(),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    title: text('title').notNull(),
    /** WORK, DEMO, TEST or UNCLASSIFIED: what the work is for, so a taker knows. */
    purpose: text('purpose').notNull(),
    publishedAt: ts('published_at').notNull(),
    updatedAt: ts('updated_at').notNull(),
    /** Set by DELETE: gone from the public, its entries end; the slug stays taken. */
    withdrawnAt: ts('withdrawn_at'),
  },
  (t) => [index('boards_listing_idx').on(t.publishedAt, t.slug), index('boards_owner_idx').on(t.ownerId)],
);

export const boardTasks = pgTable(
  'board_tasks',
  {
    boardSlug: text('board_slug')
      .notNull()
      .references(() => boards.slug),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    /** Opaque and random: what public_task_take names. A task listed again gets a new one. */
    taskRef: text('task_ref').notNull(),
    position: integer('position').notNull(),
    addedAt: ts('added_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.boardSlug, t.taskId] }),
    uniqueIndex('board_tasks_ref_key').on(t.taskRef),
    index('board_tasks_task_idx').on(t.taskId),
  ],
);

/**
 * Open pickup (SPEC Public task entry): a taker's entry to one listed task, issued by
 * public_task_take with a lease, lasting 24 hours at most. It ends early when the task is done
 * or released, or when the owner withdraws the board or takes the task off it; access stops at
 * once (every public_task_work call checks it).
 */
export const publicEntries = pgTable(
  'public_entries',
  {
    id: text('id').primaryKey(),
    boardSlug: text('board_slug')
      .notNull()
      .references(() => boards.slug),
    taskRef: text('task_ref').notNull(),
    taskId: text('task_id')
      .notNull()
      .references(() => tasks.id),
    campaignId: text('campaign_id')
      .notNull()
      .references(() => campaigns.id),
    agentId: agentRef(),
    leaseId: text('lease_id').notNull(),
    createdAt: ts('created_at').notNull(),
    expiresAt: ts('expires_at').notNull(),
    endedAt: ts('ended_at'),
    /** COMPLETED, RELEASED, BOARD_WITHDRAWN, TASK_REMOVED (expiry is read from expires_at). */
    endReason: text('end_reason'),
  },
  (t) => [
    index('public_entries_agent_idx').on(t.agentId, t.taskId),
    index('public_entries_task_idx').on(t.taskId),
    index('public_entries_board_idx').on(t.boardSlug),
  ],
);
