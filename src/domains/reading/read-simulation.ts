import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Database } from '../../storage/database.ts';
import type { Caller } from '../identity/types.ts';
import { PUBLIC_READ_RULE } from './evidence-rows.ts';
import { LEASE_RULE, receiptUrl, refusalOf } from './refusals.ts';
import type { ReceiptRow } from './repo.ts';
import * as repo from './repo.ts';
import type { Coverage, ReadCoverage } from './types.ts';

/**
 * A read simulated rather than made (policy_explain on a URL): the lease check and the guarded
 * fetcher's checks before any request run as for a read, and the verdict is stored as a SIMULATE
 * receipt. Nothing is fetched.
 */

export interface SimulationDeps {
  database: Database;
  clock: Clock;
  coverage: ReadCoverage;
  /** The checks a read makes before any request (PageReader.preflight); throws NetRefusal. */
  preflight(url: string): void;
}

/**
 * policy_explain on a URL (SPEC: simulate receipts): what a read of it would be decided now,
 * without fetching. The lease check and every check made before a request run as for a read;
 * the verdict is stored as a SIMULATE receipt naming the decision a read would get.
 */
export async function simulateRead(
  deps: SimulationDeps,
  caller: Caller,
  req: { url: string; taskId: string | null },
) {
  const now = deps.clock.now();
  let verdict: { code: string; rule: string; message: string; details: Record<string, unknown> } | null =
    null;
  let coverage: Coverage | null = null;
  try {
    coverage = await deps.coverage.coverRead(deps.database.db, caller, req.taskId, now);
    deps.preflight(req.url);
  } catch (err) {
    const refusal = err instanceof DomainError ? null : refusalOf(err);
    if (err instanceof DomainError) {
      verdict = { code: err.code, rule: LEASE_RULE, message: err.message, details: err.details };
    } else if (refusal) {
      verdict = {
        code: refusal.code,
        rule: refusal.rule,
        message: refusal.message,
        details: refusal.details,
      };
    } else throw err;
  }
  const receipt: ReceiptRow = {
    id: newId('pol', now),
    agentId: caller.agent.id,
    tool: 'policy_explain',
    decision: 'SIMULATE',
    reasonCode: verdict?.code ?? 'PUBLIC_READ',
    rule: verdict?.rule ?? PUBLIC_READ_RULE,
    inputs: {
      url: receiptUrl(req.url),
      task_id: coverage?.taskId ?? req.taskId,
      campaign_id: coverage?.campaignId ?? null,
      would_decide: verdict ? 'DENY' : 'ALLOW_ONCE',
      ...(verdict ? { refusal: verdict.details } : {}),
      not_checked:
        'Name resolution, robots.txt, redirects and the page itself are checked only when it is read.',
    },
    evidenceId: null,
    createdAt: now,
  };
  await repo.insertReceipt(deps.database.db, receipt);
  return { receipt, message: verdict?.message ?? null };
}
