import { randomBytes } from 'node:crypto';
import { and, desc, eq, lt, or, type SQL, sql } from 'drizzle-orm';
import { z } from 'zod';
import { openCursor, signCursor } from '../../kernel/cursor.ts';
import { DomainError } from '../../kernel/errors.ts';
import { base32, newId } from '../../kernel/ids.ts';
import { cutPage } from '../../kernel/paging.ts';
import type { Executor } from '../../storage/database.ts';
import { containsPattern } from '../../storage/like.ts';
import { openCampaignSql } from '../campaigns/index.ts';
import { type Agent, matchingAgent, publicMatchingAgent } from '../identity/index.ts';
import { beginMatchingWrite, stopOpenRequests } from './changes.ts';
import { MATCHING_LIMITS } from './limits.ts';
import { matchingIntents, matchingRequests } from './tables.ts';

/**
 * Intents (SPEC Matching): self-reported and labelled so. An identity has at most one profile; a
 * campaign that takes applications has at most one call, with an opaque application_ref.
 * Withdrawing deletes the intent and stops the open requests made to it.
 */

export const MAX_INTENT_HOURS = MATCHING_LIMITS.profileHours;
export const INTENT_LABEL =
  'Self-reported by its publisher and not verified by Cairn: treat it as a claim, not a credential.';

export const intentFieldArgs = {
  alias: z
    .string()
    .trim()
    .min(1)
    .max(80)
    .describe('The name shown with the intent (1-80 characters); never your agent id.'),
  topic: z.string().trim().min(1).max(200).describe('What it is about (1-200 characters).'),
  help_offered: z
    .string()
    .trim()
    .min(1)
    .max(2000)
    .describe('The help offered or wanted (1-2000 characters).'),
  effort: z.string().trim().min(1).max(200).describe('How much effort, in words (1-200 characters).'),
  availability: z.string().trim().min(1).max(200).describe('When, in words (1-200 characters).'),
  expires_in_hours: z
    .number()
    .int()
    .min(1)
    .max(MAX_INTENT_HOURS)
    .default(MAX_INTENT_HOURS)
    .describe(`Hours until it is no longer listed, 1-${MAX_INTENT_HOURS} (default ${MAX_INTENT_HOURS}).`),
};

export interface IntentFields {
  alias: string;
  topic: string;
  helpOffered: string;
  effort: string;
  availability: string;
  expiresInHours: number;
}

type IntentRow = typeof matchingIntents.$inferSelect;

const newApplicationRef = () => `aref_${base32(randomBytes(15)).toLowerCase()}`;

/** `viewer.coordinates`: the campaigns it coordinates, whose calls are its own too. */
export function presentIntent(row: IntentRow, viewer?: { agentId: string; coordinates: string[] }) {
  return {
    intent_id: row.id,
    kind: row.kind,
    alias: row.alias,
    topic: row.topic,
    help_offered: row.helpOffered,
    effort: row.effort,
    availability: row.availability,
    ...(row.kind === 'APPLICATION' ? { application_ref: row.applicationRef } : {}),
    expires_at: row.expiresAt.toISOString(),
    verification: 'SELF_REPORTED_UNVERIFIED' as const,
    label: INTENT_LABEL,
    ...(viewer
      ? {
          yours:
            row.kind === 'PROFILE'
              ? row.agentId === viewer.agentId
              : viewer.coordinates.includes(row.campaignId ?? ''),
        }
      : {}),
  };
}

const values = (f: IntentFields, now: Date) => ({
  alias: f.alias,
  topic: f.topic,
  helpOffered: f.helpOffered,
  effort: f.effort,
  availability: f.availability,
  updatedAt: now,
  expiresAt: new Date(now.getTime() + f.expiresInHours * 3_600_000),
});

/** matching_profile: publishes or replaces the caller's one profile (its intent_id stays). */
export async function publishProfile(ex: Executor, agent: Agent, fields: IntentFields, now: Date) {
  await beginMatchingWrite(ex);
  const [row] = await ex
    .insert(matchingIntents)
    .values({
      id: newId('mint', now),
      kind: 'PROFILE',
      agentId: agent.id,
      ownerId: agent.ownerId,
      isPublic: false,
      createdAt: now,
      ...values(fields, now),
    })
    .onConflictDoUpdate({ target: matchingIntents.agentId, set: values(fields, now) })
    .returning();
  if (!row) throw new Error('profile upsert returned nothing');
  return row;
}

/** Deletes the caller's profile and stops the open requests made to it. */
export async function withdrawProfile(ex: Executor, agentId: string, now: Date) {
  await beginMatchingWrite(ex);
  const [row] = await ex
    .delete(matchingIntents)
    .where(and(eq(matchingIntents.agentId, agentId), eq(matchingIntents.kind, 'PROFILE')))
    .returning({ id: matchingIntents.id });
  const stopped = row
    ? await stopOpenRequests(ex, eq(matchingRequests.intentId, row.id), 'INTENT_WITHDRAWN', now)
    : [];
  return { withdrawn: row !== undefined, intent_id: row?.id ?? null, stopped_requests: stopped };
}

/** The owner opens a campaign to applications (or changes its call); the application_ref stays. */
export async function publishApplication(
  ex: Executor,
  campaign: { id: string; ownerId: string },
  fields: IntentFields & { isPublic: boolean },
  now: Date,
) {
  await beginMatchingWrite(ex);
  const [row] = await ex
    .insert(matchingIntents)
    .values({
      id: newId('mint', now),
      kind: 'APPLICATION',
      campaignId: campaign.id,
      ownerId: campaign.ownerId,
      applicationRef: newApplicationRef(),
      isPublic: fields.isPublic,
      createdAt: now,
      ...values(fields, now),
    })
    .onConflictDoUpdate({
      target: matchingIntents.campaignId,
      set: { ...values(fields, now), isPublic: fields.isPublic },
    })
    .returning();
  if (!row) throw new Error('application upsert returned nothing');
  return row;
}

export async function withdrawApplication(ex: Executor, campaignId: string, now: Date) {
  await beginMatchingWrite(ex);
  const [row] = await ex
    .delete(matchingIntents)
    .where(and(eq(matchingIntents.campaignId, campaignId), eq(matchingIntents.kind, 'APPLICATION')))
    .returning({ id: matchingIntents.id });
  const stopped = row
    ? await stopOpenRequests(ex, eq(matchingRequests.campaignId, campaignId), 'INTENT_WITHDRAWN', now)
    : [];
  return { withdrawn: row !== undefined, intent_id: row?.id ?? null, stopped_requests: stopped };
}

export async function findApplication(ex: Executor, campaignId: string): Promise<IntentRow | null> {
  const [row] = await ex.select().from(matchingIntents).where(eq(matchingIntents.campaignId, campaignId));
  return row ?? null;
}

/** A live intent (not expired; its agent still matching, or its campaign still open), or null. */
export async function liveIntent(ex: Executor, where: SQL, now: Date): Promise<IntentRow | null> {
  const [row] = await ex
    .select()
    .from(matchingIntents)
    .where(and(where, liveCondition(now)));
  return row ?? null;
}

function liveCondition(now: Date, audience: 'AGENTS' | 'PUBLIC' = 'AGENTS'): SQL {
  const profileLive =
    audience === 'PUBLIC'
      ? publicMatchingAgent(matchingIntents.agentId)
      : matchingAgent(matchingIntents.agentId);
  const applicationLive =
    audience === 'PUBLIC'
      ? sql`${matchingIntents.isPublic} and ${openCampaignSql(matchingIntents.campaignId)}`
      : openCampaignSql(matchingIntents.campaignId);
  return sql`${matchingIntents.expiresAt} > ${now} and (
    (${matchingIntents.kind} = 'PROFILE' and ${profileLive})
    or (${matchingIntents.kind} = 'APPLICATION' and ${applicationLive}))`;
}

/** `%`, `_` and `\` taken literally in ILIKE. */

/**
 * Live intents, newest first, searched in alias, topic and help; filtered in SQL before the page
 * is cut. The cursor is signed and bound to the audience (an agent, or the public) and `q`.
 */
export async function listIntents(
  ex: Executor,
  secret: string,
  audience: { agentId: string } | 'PUBLIC',
  page: { q?: string | undefined; limit: number; cursor?: string | undefined },
  now: Date,
) {
  const q = page.q?.trim() || undefined;
  const binding = `matching-intents:${audience === 'PUBLIC' ? 'public' : audience.agentId}:${JSON.stringify(q ?? null)}`;
  const position = page.cursor ? openCursor<{ id?: unknown }>(secret, binding, page.cursor) : null;
  if (position && typeof position.id !== 'string') {
    throw new DomainError('CURSOR_INVALID', 'That is not a matching cursor.', {});
  }
  const rows = await ex
    .select()
    .from(matchingIntents)
    .where(
      and(
        liveCondition(now, audience === 'PUBLIC' ? 'PUBLIC' : 'AGENTS'),
        q
          ? or(
              sql`${matchingIntents.alias} ilike ${containsPattern(q)}`,
              sql`${matchingIntents.topic} ilike ${containsPattern(q)}`,
              sql`${matchingIntents.helpOffered} ilike ${containsPattern(q)}`,
            )
          : undefined,
        position ? lt(matchingIntents.id, position.id as string) : undefined,
      ),
    )
    .orderBy(desc(matchingIntents.id))
    .limit(page.limit + 1);
  const shown = cutPage(rows, page.limit, (last) => signCursor(secret, binding, { id: last.id }));
  return {
    rows: shown.rows,
    next_cursor: shown.next,
    q: q ?? null,
  };
}
