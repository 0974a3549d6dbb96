import { index, integer, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { ts } from '../../../storage/columns.ts';
import { ownerRef } from '../../identity/tables.ts';
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
