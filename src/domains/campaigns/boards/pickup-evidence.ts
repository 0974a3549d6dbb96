import { and, desc, eq, lt, or } from 'drizzle-orm';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { cutPage } from '../../../kernel/paging.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import { type ReadingService, windowOf } from '../../reading/index.ts';
import { campaignEvidence } from '../tables.ts';
import { continueWith } from './pickup-actions.ts';
import type { EntryStanding } from './public-entries.ts';

/**
 * What a public taker may read (public_task_work's task_evidence and evidence_get): the evidence
 * the campaign shared for the entry's task, listed a page at a time, and one of it with its text.
 * Nothing outside that task's evidence is reachable.
 */

/** The task's evidence (shared with the campaign for this task), newest first, a page at a time. */
export async function taskEvidence(
  ex: Executor,
  deps: { secret: string },
  caller: Caller,
  standing: EntryStanding,
  args: Record<string, unknown>,
) {
  const binding = `entry-evidence:${standing.entry.id}:${caller.agent.id}`;
  const before = args.cursor
    ? openCursor<{ at?: string; id?: string }>(deps.secret, binding, args.cursor as string)
    : null;
  if (before && (typeof before.at !== 'string' || typeof before.id !== 'string')) {
    throw new DomainError('CURSOR_INVALID', 'That is not a task evidence cursor.', {});
  }
  const limit = (args.limit as number | undefined) ?? 20;
  const rows = await ex
    .select()
    .from(campaignEvidence)
    .where(
      and(
        eq(campaignEvidence.campaignId, standing.entry.campaignId),
        eq(campaignEvidence.taskId, standing.entry.taskId),
        before?.at && before.id
          ? or(
              lt(campaignEvidence.createdAt, new Date(before.at)),
              and(
                eq(campaignEvidence.createdAt, new Date(before.at)),
                lt(campaignEvidence.evidenceId, before.id),
              ),
            )
          : undefined,
      ),
    )
    .orderBy(desc(campaignEvidence.createdAt), desc(campaignEvidence.evidenceId))
    .limit(limit + 1);
  const { rows: page, next } = cutPage(rows, limit, (last) =>
    signCursor(deps.secret, binding, { at: last.createdAt.toISOString(), id: last.evidenceId }),
  );
  return {
    evidence: page.map((r) => ({
      evidence_id: r.evidenceId,
      note: r.note,
      shared_at: r.createdAt.toISOString(),
    })),
    next_cursor: next,
    next_steps:
      page.length > 0
        ? [
            {
              tool: 'public_task_work',
              action: 'Read one with its text.',
              arguments: {
                public_entry_id: standing.entry.id,
                action: 'evidence_get',
                arguments: { evidence_id: page[0]?.evidenceId, include_text: true },
              },
            },
          ]
        : [
            {
              tool: 'public_task_work',
              action: 'This task has no evidence yet: leave the campaign a note, or give the task up.',
              arguments: { public_entry_id: standing.entry.id, action: 'notes', arguments: { text: '…' } },
            },
          ],
  };
}

/** One evidence of the task: only what task_evidence lists is reachable. */
export async function evidenceOfTask(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  standing: EntryStanding,
  args: Record<string, unknown>,
) {
  const evidenceId = args.evidence_id as string;
  const [shared] = await ex
    .select({ id: campaignEvidence.evidenceId })
    .from(campaignEvidence)
    .where(
      and(
        eq(campaignEvidence.campaignId, standing.entry.campaignId),
        eq(campaignEvidence.taskId, standing.entry.taskId),
        eq(campaignEvidence.evidenceId, evidenceId),
      ),
    );
  if (!shared) {
    throw new DomainError(
      'NOT_FOUND',
      `Evidence ${evidenceId} is not evidence of this task.`,
      { evidence_id: evidenceId },
      { alternatives: [continueWith(standing, 'task_evidence')] },
    );
  }
  const e = await reading.evidence(caller, evidenceId, ex);
  return {
    evidence: {
      evidence_id: e.id,
      title: e.title,
      provenance: e.provenance,
      trust_label: e.trustLabel,
      flags: e.flags,
      citation: {
        canonical_url: e.canonicalUrl,
        retrieved_at: e.retrievedAt.toISOString(),
        http_status: e.httpStatus,
        body_hash: e.bodyHash,
      },
      text_chars: e.text.length,
    },
    ...(args.include_text
      ? {
          window: windowOf(e.text, {
            offset: args.offset as number | undefined,
            maxChars: args.max_chars as number | undefined,
          }),
        }
      : {}),
  };
}
