import { DomainError } from '../../../kernel/errors.ts';
import type { Executor } from '../../../storage/database.ts';
import type { Caller } from '../../identity/index.ts';
import type { EvidenceRecord, ReadingService } from '../../reading/index.ts';
import { extractQuotes, MAX_QUOTES } from './quotes.ts';
import { matchQuotes, type Verification } from './source-checks.ts';

/**
 * Paid work is verified harder (SPEC Errors 4: "paid work requires all qualifying quotes to match
 * evidence actually read"): on a task with a funded reward, every quotation of 20+ characters
 * must be found in evidence the submitting worker itself read under this task (a fetch or
 * snapshot filed under the task), not in evidence others shared. A failure makes the
 * submission NOT_VERIFIED, so the lease stays and the worker can read and resubmit; the release
 * is refused until a submission passes.
 */

const READ_PROVENANCE = new Set(['SERVER_FETCH', 'SNAPSHOT']);

export interface PaidQuotes {
  rule: string;
  matched: Array<{ quote: string; evidence_id: string }>;
  unmatched: Array<{ quote: string; reason: string }>;
}

export const PAID_RULE =
  'This task carries a funded reward: every quotation of 20+ characters must match evidence you read yourself under this task (fetch_text or fetch_snapshot with its task_id), not evidence shared by others.';

export async function withPaidRule(
  ex: Executor,
  reading: ReadingService,
  caller: Caller,
  taskId: string,
  summary: string,
  v: Verification,
): Promise<Verification & { paid_quotes: PaidQuotes }> {
  const own: EvidenceRecord[] = [];
  for (const id of v.evidence_completeness.recorded_sources) {
    try {
      const record = await reading.evidence(caller, id, ex);
      if (
        record.agentId === caller.agent.id &&
        record.taskId === taskId &&
        READ_PROVENANCE.has(record.provenance)
      ) {
        own.push(record);
      }
    } catch (err) {
      if (!(err instanceof DomainError) || err.code !== 'NOT_FOUND') throw err;
    }
  }
  const quotes = extractQuotes(summary).slice(0, MAX_QUOTES);
  const found = await matchQuotes(reading, own, quotes);
  const unmatched = quotes
    .filter((q) => !found.has(q))
    .map((quote) => ({
      quote,
      reason:
        own.length === 0
          ? 'none of the attached evidence was read by you under this task'
          : 'not found in evidence you read under this task',
    }));
  const passed = quotes.length > 0 && unmatched.length === 0;
  return {
    ...v,
    status: v.status === 'VERIFIED' && passed ? 'VERIFIED' : 'NOT_VERIFIED',
    checks: [
      ...v.checks,
      {
        check: 'PAID_QUOTES_OWN_READS',
        passed,
        detail: `${found.size} of ${quotes.length} quotation(s) match evidence you read under this task.`,
      },
    ],
    paid_quotes: {
      rule: PAID_RULE,
      matched: [...found.values()].map((m) => ({ quote: m.quote, evidence_id: m.evidence_id })),
      unmatched,
    },
  };
}
