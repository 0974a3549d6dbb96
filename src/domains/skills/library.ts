import { and, eq, inArray } from 'drizzle-orm';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Executor } from '../../storage/database.ts';
import { lockedOne } from '../../storage/locked.ts';
import { recordCampaignSkillEvent } from '../campaigns/index.ts';
import type { VersionRow } from './access.ts';
import { recordSkillEvent } from './events.ts';
import {
  decides,
  distributableVersion,
  ledgerActor,
  requireDistributable,
  roleRequired,
  type Standing,
} from './standing.ts';
import { campaignSkills, skillVersions } from './tables.ts';

/**
 * A campaign's skill library (docs/skills.md): a member proposes a version its owner account
 * may distribute, a coordinator or the campaign's owner accepts or declines it, and accepted
 * entries are what context CAMPAIGN gives the members. Every change writes a skill event and a
 * campaign ledger event, the latter last in the transaction.
 */

export type EntryRow = typeof campaignSkills.$inferSelect;

async function entryForChange(ex: Executor, campaignId: string, entryId: string): Promise<EntryRow> {
  return lockedOne(
    ex
      .select()
      .from(campaignSkills)
      .where(and(eq(campaignSkills.id, entryId), eq(campaignSkills.campaignId, campaignId))),
    () =>
      new DomainError(
        'NOT_FOUND',
        `No library entry ${entryId} in campaign ${campaignId}.`,
        { campaign_id: campaignId, entry_id: entryId },
        {
          next: 'Entry ids come from campaign_skill_propose and from the SKILL_* events of the campaign’s ledger (events_watch).',
        },
      ),
  );
}

function wrongState(entry: EntryRow, wanted: string): DomainError {
  return new DomainError(
    'CONFLICT',
    `Library entry ${entry.id} is ${entry.state}; only ${wanted} entries can be changed so.`,
    { entry_id: entry.id, state: entry.state, version_id: entry.versionId },
  );
}

async function versionOf(ex: Executor, versionId: string): Promise<VersionRow> {
  const [version] = await ex.select().from(skillVersions).where(eq(skillVersions.id, versionId));
  if (!version) throw new Error(`version ${versionId} of a library entry is missing`);
  return version;
}

const KINDS = {
  PROPOSED: 'LIBRARY_PROPOSED',
  ACCEPTED: 'LIBRARY_ACCEPTED',
  DECLINED: 'LIBRARY_DECLINED',
  UPDATED: 'LIBRARY_UPDATED',
  REMOVED: 'LIBRARY_REMOVED',
} as const;

/** The skill event, then the campaign ledger event (last, as the ledger asks). */
async function recordChange(
  ex: Executor,
  s: Standing,
  change: keyof typeof KINDS,
  entry: EntryRow,
  version: VersionRow,
  extra: Record<string, unknown>,
  now: Date,
): Promise<void> {
  const payload = {
    entry_id: entry.id,
    version_id: version.id,
    name: version.name,
    state: entry.state,
    ...extra,
  };
  await recordSkillEvent(
    ex,
    {
      skillId: version.skillId,
      versionId: version.id,
      kind: KINDS[change],
      actor: s.actor,
      detail: { campaign_id: s.campaign.id, ...payload },
    },
    now,
  );
  await recordCampaignSkillEvent(
    ex,
    s.campaign.id,
    { kind: `SKILL_${change}`, actor: ledgerActor(s), payload },
    now,
  );
}

/**
 * Proposes a version to the library. The campaign's owner decides, so its own proposal is
 * ACCEPTED at once (one SKILL_ACCEPTED event); a member's waits as PROPOSED. One live entry per
 * version: a second is a CONFLICT naming the first.
 */
export async function proposeEntry(
  ex: Executor,
  s: Standing,
  input: { versionId: string; note?: string | undefined },
  now: Date,
): Promise<EntryRow> {
  const version = await distributableVersion(ex, s.actor, input.versionId);
  const state = s.role === 'OWNER' ? 'ACCEPTED' : 'PROPOSED';
  const [entry] = await ex
    .insert(campaignSkills)
    .values({
      id: newId('csk', now),
      campaignId: s.campaign.id,
      versionId: version.id,
      state,
      proposedByAgentId: s.actor.agentId,
      proposedByOwnerId: s.actor.agentId === null ? s.actor.ownerId : null,
      note: input.note ?? null,
      decidedBy: state === 'ACCEPTED' ? s.actor.ownerId : null,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning();
  if (!entry) {
    const [live] = await ex
      .select()
      .from(campaignSkills)
      .where(
        and(
          eq(campaignSkills.campaignId, s.campaign.id),
          eq(campaignSkills.versionId, version.id),
          inArray(campaignSkills.state, ['PROPOSED', 'ACCEPTED']),
        ),
      );
    throw new DomainError(
      'CONFLICT',
      `Skill version ${version.id} already has a live entry in campaign ${s.campaign.id}: ${live?.id ?? 'another'} (${live?.state ?? 'PROPOSED'}).`,
      {
        campaign_id: s.campaign.id,
        version_id: version.id,
        entry_id: live?.id ?? null,
        state: live?.state ?? null,
      },
      {
        next: 'Change that entry’s note with campaign_skill_update, or remove it first with campaign_skill_remove.',
      },
    );
  }
  await recordChange(
    ex,
    s,
    state,
    entry,
    version,
    { note: entry.note, ...(state === 'ACCEPTED' ? { direct: true } : {}) },
    now,
  );
  return entry;
}

/** A coordinator's (or the owner's) decision on a PROPOSED entry. */
export async function decideEntry(
  ex: Executor,
  s: Standing,
  input: { entryId: string; decision: 'ACCEPT' | 'DECLINE'; reason?: string | undefined },
  now: Date,
): Promise<EntryRow> {
  if (!decides(s)) throw roleRequired(s.campaign.id, 'decide on library proposals', s.role);
  const entry = await entryForChange(ex, s.campaign.id, input.entryId);
  if (entry.state !== 'PROPOSED') throw wrongState(entry, 'PROPOSED');
  const version = await versionOf(ex, entry.versionId);
  if (input.decision === 'ACCEPT') await requireDistributable(ex, version);
  const [decided] = await ex
    .update(campaignSkills)
    .set({
      state: input.decision === 'ACCEPT' ? 'ACCEPTED' : 'DECLINED',
      decidedBy: s.actor.agentId ?? s.actor.ownerId,
      decisionReason: input.reason ?? null,
      updatedAt: now,
    })
    .where(eq(campaignSkills.id, entry.id))
    .returning();
  if (!decided) throw new Error('library entry update returned nothing');
  const change = decided.state === 'ACCEPTED' ? 'ACCEPTED' : 'DECLINED';
  await recordChange(ex, s, change, decided, version, { reason: input.reason ?? null }, now);
  return decided;
}

/** A new note on a live entry, by its proposer or a coordinator (or the owner). */
export async function updateEntry(
  ex: Executor,
  s: Standing,
  input: { entryId: string; note: string },
  now: Date,
): Promise<EntryRow> {
  const entry = await entryForChange(ex, s.campaign.id, input.entryId);
  const proposer = s.actor.agentId !== null && entry.proposedByAgentId === s.actor.agentId;
  if (!decides(s) && !proposer)
    throw roleRequired(s.campaign.id, 'change the note of another member’s entry', s.role);
  if (entry.state !== 'PROPOSED' && entry.state !== 'ACCEPTED')
    throw wrongState(entry, 'PROPOSED or ACCEPTED');
  const [updated] = await ex
    .update(campaignSkills)
    .set({ note: input.note, updatedAt: now })
    .where(eq(campaignSkills.id, entry.id))
    .returning();
  if (!updated) throw new Error('library entry update returned nothing');
  await recordChange(
    ex,
    s,
    'UPDATED',
    updated,
    await versionOf(ex, entry.versionId),
    { note: input.note },
    now,
  );
  return updated;
}

/**
 * Removes an entry from the library: a coordinator (or the owner) any live one, its proposer its
 * own PROPOSED one. The removal is the entry's last decision (decided_by, decision_reason).
 * Removing a removed entry answers it as it is. Task attachments made from it stay: the task's
 * creator chose them, and detaches them if they should go.
 */
export async function removeEntry(
  ex: Executor,
  s: Standing,
  input: { entryId: string; reason?: string | undefined },
  now: Date,
): Promise<EntryRow> {
  const entry = await entryForChange(ex, s.campaign.id, input.entryId);
  if (entry.state === 'REMOVED') return entry;
  const ownProposal =
    s.actor.agentId !== null && entry.proposedByAgentId === s.actor.agentId && entry.state === 'PROPOSED';
  if (!decides(s) && !ownProposal) {
    throw roleRequired(
      s.campaign.id,
      'remove this entry (a proposer may withdraw only its own PROPOSED entry)',
      s.role,
    );
  }
  if (entry.state !== 'PROPOSED' && entry.state !== 'ACCEPTED')
    throw wrongState(entry, 'PROPOSED or ACCEPTED');
  const [removed] = await ex
    .update(campaignSkills)
    .set({
      state: 'REMOVED',
      decidedBy: s.actor.agentId ?? s.actor.ownerId,
      decisionReason: input.reason ?? null,
      updatedAt: now,
    })
    .where(eq(campaignSkills.id, entry.id))
    .returning();
  if (!removed) throw new Error('library entry update returned nothing');
  const extra = { reason: input.reason ?? null, previous_state: entry.state };
  await recordChange(ex, s, 'REMOVED', removed, await versionOf(ex, entry.versionId), extra, now);
  return removed;
}

/** An entry as callers see it; the owner's account is named only as OWNER. */
export function presentEntry(e: EntryRow) {
  const who = (id: string | null) => (id === null ? null : id.startsWith('agt_') ? id : 'OWNER');
  return {
    entry_id: e.id,
    campaign_id: e.campaignId,
    version_id: e.versionId,
    state: e.state,
    note: e.note,
    proposed_by: e.proposedByAgentId ?? 'OWNER',
    decided_by: who(e.decidedBy),
    decision_reason: e.decisionReason,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}
