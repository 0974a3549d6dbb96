import { and, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { EvidenceRecord, ReadingService } from '../../reading/index.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';
import { campaignEvidence } from '../tables.ts';
import { extractQuotes, MAX_QUOTES } from './quotes.ts';

/**
 * Source checks of a submitted summary (SPEC "Verification", Errors 4): every quotation of 20 or
 * more characters must be found in the attached evidence, first exactly, then with whitespace,
 * quotation marks and Unicode forms normalised. The checks say nothing about whether the
 * conclusion is right; the answer says so in those words.
 */

export const VERIFIED_MEANING =
  'VERIFIED means the configured checks passed: at least one recorded source is attached and every verbatim quotation of 20 or more characters in the summary was found in the attached evidence. It is not a claim that the conclusion is true.';

/**
 * Provenances that count as a recorded source (SPEC: "recorded source"): what Cairn itself read,
 * and mail its mailbox itself received (docs/mail.md "Mail as evidence"). Imports are what
 * somebody handed in, so they are not.
 */
const RECORDED = new Set(['SERVER_FETCH', 'SNAPSHOT', 'RECEIVED_MAIL']);

export interface MatchedQuote {
  quote: string;
  evidence_id: string;
  match: 'EXACT' | 'NORMALISED';
  offset: number;
  length: number;
  page: number | null;
}

export interface Verification {
  status: 'VERIFIED' | 'NOT_VERIFIED';
  meaning: string;
  checks: Array<{ check: string; passed: boolean; detail: string }>;
  matched_quotes: MatchedQuote[];
  unmatched_quotes: Array<{ quote: string; reason: string }>;
  evidence_completeness: {
    attached: number;
    recorded_sources: string[];
    not_usable: Array<{ evidence_id: string; reason: string }>;
    complete: boolean;
  };
  quotes_not_checked: number;
  checked_at: string;
}

/** Runs the checks as `caller` sees the evidence (a source it may not see is not usable). */
export async function verifySummary(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  campaignId: string,
  evidenceIds: string[],
  summary: string,
  now: Date,
): Promise<Verification> {
  const usable: EvidenceRecord[] = [];
  const notUsable: Array<{ evidence_id: string; reason: string }> = [];
  for (const id of evidenceIds) {
    try {
      const record = await reading.evidence(caller, id, ex);
      if (!RECORDED.has(record.provenance)) {
        notUsable.push({
          evidence_id: id,
          reason: `provenance ${record.provenance} is not a recorded source`,
        });
      } else if (record.agentId !== caller.agent.id && !(await inCampaign(ex, campaignId, id))) {
        // Visible through another campaign's sharing: it may not travel into this one.
        notUsable.push({ evidence_id: id, reason: 'neither your own read nor evidence of this campaign' });
      } else {
        usable.push(record);
      }
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'NOT_FOUND') throw err;
      notUsable.push({ evidence_id: id, reason: 'unknown, or not visible to you' });
    }
  }
  const allQuotes = extractQuotes(summary);
  const quotes = allQuotes.slice(0, MAX_QUOTES);
  const found = await matchQuotes(reading, usable, quotes);
  const matched = quotes.flatMap((q) => found.get(q) ?? []);
  const unmatched = quotes
    .filter((q) => !found.has(q))
    .map((quote) => ({ quote, reason: 'not found in the attached evidence, exactly or normalised' }));
  const checks = [
    {
      check: 'RECORDED_SOURCE',
      passed: usable.length > 0,
      detail: `${usable.length} of ${evidenceIds.length} attached evidence records are recorded sources you may see.`,
    },
    {
      check: 'QUOTATION_PRESENT',
      passed: quotes.length > 0,
      detail:
        quotes.length > 0
          ? `${quotes.length} quotation(s) of ${CAMPAIGN_LIMITS.quoteMinChars}+ characters checked.`
          : `The summary quotes no source verbatim (a quotation of ${CAMPAIGN_LIMITS.quoteMinChars} or more characters in quotation marks, beside the claim it supports).`,
    },
    {
      check: 'EVERY_QUOTATION_CHECKED',
      passed: allQuotes.length <= quotes.length,
      detail:
        allQuotes.length <= quotes.length
          ? 'Every quotation was checked.'
          : `Only the first ${MAX_QUOTES} of ${allQuotes.length} quotations are checked; quote fewer, or split the result.`,
    },
    {
      check: 'QUOTES_MATCH_EVIDENCE',
      passed: quotes.length > 0 && unmatched.length === 0,
      detail: `${matched.length} matched, ${unmatched.length} unmatched.`,
    },
  ];
  return {
    status: checks.every((c) => c.passed) ? 'VERIFIED' : 'NOT_VERIFIED',
    meaning: VERIFIED_MEANING,
    checks,
    matched_quotes: matched,
    unmatched_quotes: unmatched,
    evidence_completeness: {
      attached: evidenceIds.length,
      recorded_sources: usable.map((r) => r.id),
      not_usable: notUsable,
      complete: usable.length > 0 && notUsable.length === 0,
    },
    quotes_not_checked: allQuotes.length - quotes.length,
    checked_at: now.toISOString(),
  };
}

/**
 * Where each quote is found in the evidence, in the order given (the first record holding it
 * wins); one pool job per record, for the quotes not found yet. Missing quotes are absent.
 */
export async function matchQuotes(
  reading: ReadingService,
  records: EvidenceRecord[],
  quotes: string[],
): Promise<Map<string, MatchedQuote>> {
  const found = new Map<string, MatchedQuote>();
  for (const record of records) {
    const pending = quotes.filter((q) => !found.has(q));
    if (pending.length === 0) break;
    const matches = await reading.text.locateAll(record, pending);
    pending.forEach((quote, i) => {
      const m = matches[i];
      if (m) found.set(quote, { quote, evidence_id: record.id, ...m });
    });
  }
  return found;
}

/** Whether evidence was shared into the campaign (a read under its lease, or submitted to it). */
export async function inCampaign(ex: Executor, campaignId: string, evidenceId: string): Promise<boolean> {
  const rows = await ex
    .select({ id: campaignEvidence.evidenceId })
    .from(campaignEvidence)
    .where(and(eq(campaignEvidence.campaignId, campaignId), eq(campaignEvidence.evidenceId, evidenceId)));
  return rows.length > 0;
}
