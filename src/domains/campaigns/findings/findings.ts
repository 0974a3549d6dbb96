import { eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import { newId } from '../../../kernel/ids.ts';
import type { Executor } from '../../../storage/database.ts';
import { type Caller, findAgent } from '../../identity/index.ts';
import { type EvidenceRecord, type ReadingService, storeAuthored } from '../../reading/index.ts';
import { viewerOf } from '../audience.ts';
import { appendEvent } from '../core/ledger.ts';
import type { Membership } from '../core/member.ts';
import { taskForMember } from '../core/task-access.ts';
import { extractQuotes, MAX_QUOTES } from '../verification/quotes.ts';
import { matchQuotes } from '../verification/source-checks.ts';
import { campaignEvidenceFor, shareIntoCampaign } from './cited.ts';
import { findingText } from './finding-present.ts';
import { allVerdicts, visibleFinding } from './finding-repo.ts';
import { statusOf, type Verdict } from './status.ts';
import { findingReviews, findings } from './tables.ts';

const DAY_MS = 86_400_000;

export interface FindingInput {
  claim: string;
  evidenceIds: string[];
  affectedVersions?: string[] | undefined;
  unknowns?: string[] | undefined;
  contradictions?: string[] | undefined;
  sourceMaxAgeDays?: number | undefined;
  taskId?: string | undefined;
}

/**
 * finding_create: the claim, what it rests on and what is still open, stored as a finding and as
 * evidence with the same id (so it can be cited), shared with the campaign under its mode, with
 * a FINDING_CREATED event, in one transaction.
 */
export async function createFinding(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  member: Membership,
  input: FindingInput,
  now: Date,
) {
  const campaignId = member.campaign.id;
  if (input.taskId) await taskForMember(ex, caller, input.taskId, { campaignId, forChange: true });
  const cited = await citable(ex, reading, caller, campaignId, [...new Set(input.evidenceIds)]);
  const warnings =
    input.sourceMaxAgeDays === undefined ? [] : ageWarnings(cited, input.sourceMaxAgeDays, now);
  const lists = {
    affectedVersions: input.affectedVersions ?? [],
    unknowns: input.unknowns ?? [],
    contradictions: input.contradictions ?? [],
  };
  const id = newId('evd', now);
  const taskId = input.taskId ?? null;
  await storeAuthored(
    ex,
    {
      id,
      agentId: caller.agent.id,
      kind: 'finding',
      title: `Finding: ${input.claim.split('\n')[0]?.slice(0, 200)}`,
      text: findingText({ claim: input.claim, evidenceIds: cited.map((e) => e.id), ...lists }),
      campaignId,
      taskId,
    },
    now,
  );
  // The finding and the author's own reads it cites join the campaign's evidence, under the
  // finding's task: whatever task a read was made for elsewhere means nothing here.
  await shareIntoCampaign(ex, caller, member, [{ id, agentId: caller.agent.id }, ...cited], taskId, now);
  const [row] = await ex
    .insert(findings)
    .values({
      id,
      campaignId,
      taskId,
      authorAgentId: caller.agent.id,
      authorRole: member.role,
      claim: input.claim,
      evidenceIds: cited.map((e) => e.id),
      ...lists,
      sourceMaxAgeDays: input.sourceMaxAgeDays ?? null,
      warnings,
      status: 'UNREVIEWED',
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  await appendEvent(
    ex,
    campaignId,
    {
      kind: 'FINDING_CREATED',
      actor: { agentId: caller.agent.id, role: member.role },
      taskId,
      evidenceIds: [id, ...cited.map((e) => e.id)],
      payload: { finding_id: id, status: 'UNREVIEWED', source_age_warnings: warnings.length },
    },
    now,
  );
  return row!;
}

export interface ReviewInput {
  findingId: string;
  verdict: Verdict;
  rationale: string;
  evidenceIds: string[];
}

/**
 * finding_review: an independent assessment. The reviewer must see the finding, be another
 * identity (and, unless the campaign's owner allows it, of another owner), cite evidence it can
 * see in this campaign, and quote that evidence verbatim where it quotes at all.
 */
export async function reviewFinding(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  member: Membership,
  input: ReviewInput,
  now: Date,
) {
  const finding = await visibleFinding(ex, viewerOf(member), input.findingId, true);
  if (!finding) throw findingNotFound(input.findingId);
  if (finding.authorAgentId === caller.agent.id) {
    throw new DomainError('SELF_REVIEW', 'You wrote this finding; someone else must review it.', {
      finding_id: finding.id,
    });
  }
  if (!member.campaign.allowSameOwnerReview) {
    const author = await findAgent(ex, finding.authorAgentId);
    if (author?.ownerId === caller.agent.ownerId) {
      throw new DomainError(
        'SAME_OWNER_REVIEW',
        "The finding's author belongs to your owner; reviews must come from another owner's identity in this campaign.",
        { finding_id: finding.id },
      );
    }
  }
  const cited = await citable(ex, reading, caller, member.campaign.id, [...new Set(input.evidenceIds)]);
  const quotes = await checkQuotes(reading, cited, input.rationale);
  // What the review rests on must be open to the finding's readers, as the finding's own sources are.
  await shareIntoCampaign(ex, caller, member, cited, finding.taskId, now);
  const id = newId('rvw', now);
  const inserted = await ex
    .insert(findingReviews)
    .values({
      id,
      findingId: finding.id,
      campaignId: member.campaign.id,
      reviewerAgentId: caller.agent.id,
      reviewerRole: member.role,
      verdict: input.verdict,
      rationale: input.rationale,
      evidenceIds: cited.map((e) => e.id),
      quotes,
      createdAt: now,
    })
    .onConflictDoNothing()
    .returning();
  const review = inserted[0];
  if (!review) {
    throw new DomainError('ALREADY_REVIEWED', `You have already reviewed finding ${finding.id}.`, {
      finding_id: finding.id,
    });
  }
  const status = statusOf(await allVerdicts(ex, finding.id));
  const [updated] = await ex
    .update(findings)
    .set({ status, updatedAt: now })
    .where(eq(findings.id, finding.id))
    .returning();
  await appendEvent(
    ex,
    member.campaign.id,
    {
      kind: 'FINDING_REVIEWED',
      actor: { agentId: caller.agent.id, role: member.role },
      taskId: finding.taskId,
      evidenceIds: [finding.id, ...cited.map((e) => e.id)],
      payload: { finding_id: finding.id, review_id: id, verdict: input.verdict, status },
    },
    now,
  );
  return { finding: updated!, review };
}

export const findingNotFound = (findingId: string) =>
  new DomainError(
    'NOT_FOUND',
    `No finding ${findingId} that this identity can see.`,
    { finding_id: findingId },
    { next: 'finding_list shows the findings of this campaign you may see.' },
  );

/**
 * The cited evidence, each visible to the caller and part of this campaign (shared into it, or
 * the caller's own read, which citing brings in): anything else is NOT_FOUND, named.
 */
async function citable(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  campaignId: string,
  ids: string[],
): Promise<EvidenceRecord[]> {
  const records: EvidenceRecord[] = [];
  for (const id of ids) {
    const record = await campaignEvidenceFor(ex, reading, caller, campaignId, id);
    if (!record) {
      throw new DomainError(
        'NOT_FOUND',
        `Evidence ${id} is not visible to you in this campaign.`,
        { evidence_id: id, campaign_id: campaignId },
        {
          next: 'Cite your own reads (fetch_text under a lease) or evidence shared into this campaign; evidence_get shows what you can see.',
        },
      );
    }
    records.push(record);
  }
  return records;
}

/** A source older than max days (by its own date when it has one, else when it was read). */
function ageWarnings(cited: EvidenceRecord[], maxDays: number, now: Date) {
  return cited.flatMap((e) => {
    const basis = e.sourceDate ? 'source_date' : 'retrieved_at';
    const at = e.sourceDate ?? e.retrievedAt;
    const ageDays = Math.floor((now.getTime() - at.getTime()) / DAY_MS);
    return ageDays > maxDays
      ? [
          {
            code: 'SOURCE_TOO_OLD',
            evidence_id: e.id,
            basis,
            [basis]: at.toISOString(),
            age_days: ageDays,
            max_age_days: maxDays,
          },
        ]
      : [];
  });
}

/**
 * Every quotation of the rationale must be found in the cited evidence, as task summaries are
 * checked; more than a summary may check is refused rather than left partly unchecked.
 */
async function checkQuotes(reading: ReadingService, cited: EvidenceRecord[], text: string) {
  const quotes = extractQuotes(text);
  if (quotes.length > MAX_QUOTES) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `The rationale quotes ${quotes.length} passages; at most ${MAX_QUOTES} can be checked.`,
      { quotes: quotes.length, max_quotes: MAX_QUOTES },
      {
        next: `Quote at most ${MAX_QUOTES} passages verbatim and paraphrase the rest, then call finding_review again.`,
      },
    );
  }
  const found = await matchQuotes(reading, cited, quotes);
  const unmatched = quotes.filter((q) => !found.has(q));
  if (unmatched.length > 0) {
    throw new DomainError(
      'QUOTE_NOT_IN_EVIDENCE',
      `${unmatched.length} quotation(s) in the rationale were not found in the evidence cited.`,
      { unmatched_quotes: unmatched, evidence_ids: cited.map((e) => e.id) },
    );
  }
  return quotes.map((q) => found.get(q)!);
}
