import type { SQL } from 'drizzle-orm';
import type { Clock } from '../../kernel/clock.ts';
import { type Alternative, DomainError, type ErrorCode, retryableByDefault } from '../../kernel/errors.ts';
import { newId } from '../../kernel/ids.ts';
import type { Database } from '../../storage/database.ts';
import type { Caller } from '../identity/types.ts';
import { alternativesFor, type ReadRefusal } from './refusals.ts';
import * as repo from './repo.ts';
import type { Coverage, ReadCoverage } from './types.ts';

/**
 * Refusing a read: the DENY receipt that records it, and the moves offered instead, each one
 * checked against what this caller can do now (a configured search, a visible stored copy, a
 * read its leases cover), so following an alternative never leads into another refusal of the
 * same kind or back to where it started (issue 13 item 2).
 */
export interface DenialDeps {
  database: Database;
  clock: Clock;
  coverage: ReadCoverage;
  searchConfigured: boolean;
  visibleTo(caller: Caller): SQL;
}

export interface DenialOptions {
  /** The redirect hops walked before the refusal. */
  hops?: string[] | undefined;
  /** The caller's read was already covered (the refusal came after the lease check): by this. */
  coverage?: Coverage;
}

/** Stores the DENY receipt of a refusal and returns the error that carries it. */
export async function deny(
  deps: DenialDeps,
  caller: Caller,
  tool: string,
  inputs: Record<string, unknown>,
  refusal: ReadRefusal,
  options: DenialOptions = {},
): Promise<DomainError> {
  const now = deps.clock.now();
  const receiptId = newId('pol', now);
  const receipt = {
    id: receiptId,
    agentId: caller.agent.id,
    tool,
    decision: 'DENY' as const,
    reasonCode: refusal.code,
    rule: refusal.rule,
    inputs: { ...inputs, ...(options.hops ? { hops: options.hops } : {}), refusal: refusal.details },
    evidenceId: null,
    createdAt: now,
  };
  const coverage = options.coverage;
  if (coverage?.campaignId) {
    // A read refused under a lease is on the campaign's ledger too, with its receipt.
    await deps.database.transaction(async (tx) => {
      await repo.insertReceipt(tx, receipt);
      await deps.coverage.recordRefusal(
        tx,
        coverage,
        { agentId: caller.agent.id, receiptId, code: refusal.code, tool },
        now,
      );
    });
  } else {
    await repo.insertReceipt(deps.database.db, receipt);
  }
  const retryable = refusal.retryable ?? retryableByDefault(refusal.code);
  const alternatives =
    refusal.alternatives ??
    (await alternativesNow(deps, caller, tool, refusal.code, {
      url: typeof inputs.url === 'string' ? inputs.url : null,
      retryable,
      covered: options.coverage !== undefined,
    }));
  return new DomainError(
    refusal.code,
    refusal.message,
    { ...refusal.details, policy_receipt_id: receiptId },
    {
      alternatives,
      next: refusal.next,
      ...(refusal.retryable !== undefined ? { retryable: refusal.retryable } : {}),
    },
  );
}

/** The alternatives to a refusal that can succeed for this caller now (also policy_explain's). */
export async function alternativesNow(
  deps: DenialDeps,
  caller: Caller,
  tool: string,
  code: ErrorCode,
  at: { url: string | null; retryable: boolean; covered: boolean },
): Promise<Alternative[]> {
  const ex = deps.database.db;
  const url = at.url !== null && !at.url.endsWith('/[redacted]') && at.url !== '[redacted]' ? at.url : null;
  const snapshot = url !== null && (await repo.hasCopy(ex, deps.visibleTo(caller), normaliseUrl(url)));
  return alternativesFor(code, {
    tool,
    url,
    retryable: at.retryable,
    search: deps.searchConfigured,
    snapshot,
    readBlockedBy: at.covered ? null : await readBlockedBy(deps, caller),
  });
}

/**
 * Null when a fresh read without task_id would be covered now; else the moves its coverage
 * refusal names instead (claim a task, name one of the leases held).
 */
export async function readBlockedBy(deps: DenialDeps, caller: Caller): Promise<Alternative[] | null> {
  try {
    await deps.coverage.coverRead(deps.database.db, caller, null, deps.clock.now());
    return null;
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return err.alternatives ?? [];
  }
}

/** The URL as the WHATWG parser spells it, so lookups match what reads stored; raw text otherwise. */
export function normaliseUrl(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
