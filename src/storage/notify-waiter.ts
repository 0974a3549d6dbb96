import type { Database } from './database.ts';

/** How often a waiting reader re-reads without a wake-up. */
const RECHECK_MS = 5_000;

/** How a wait ended: a NOTIFY for the key, the time ran out, or the process is closing. */
export type WaitOutcome = 'woken' | 'timeout' | 'closed';

/**
 * A registration for one key's next wake-up. Arm it BEFORE reading the ledger, then wait:
 * a NOTIFY that lands between the read and the wait is kept, so no wake-up falls in the gap.
 */
export interface WaitTicket {
  /** Resolves at the first wake-up since arming (at once if one came already), after `ms`, or on close. */
  wait(ms: number, signal?: AbortSignal): Promise<WaitOutcome>;
  /** Unregisters; always call it (a finally block), waited or not. */
  cancel(): void;
}

interface Entry {
  settled: WaitOutcome | null;
  resolve: ((outcome: WaitOutcome) => void) | null;
}

/**
 * A per-process wake-up on one NOTIFY channel: ONE `LISTEN` for the whole process, started on
 * first use, fanned out to the waiters of the notified key (the payload: a campaign id). A
 * transactional pg_notify makes a wake-up mean a commit, from this replica or any other. Waking
 * is only a hint to re-read: correctness rests on the reader's own cursor, and waiters re-read on
 * their own every few seconds in case a reconnecting LISTEN missed a NOTIFY. The campaign ledger
 * (events_watch) and campaign mailboxes (campaign_mail_wait) each have one.
 */
export class NotifyWaiter {
  private readonly waiting = new Map<string, Set<Entry>>();
  private listening: Promise<() => Promise<void>> | null = null;
  private closed = false;

  constructor(
    private readonly database: Database,
    private readonly channel: string,
  ) {}

  /** Registers for `campaignId`'s next wake-up; resolves once this process is LISTENing. */
  async arm(campaignId: string): Promise<WaitTicket> {
    const entry: Entry = { settled: this.closed ? 'closed' : null, resolve: null };
    if (!this.closed) {
      const set = this.waiting.get(campaignId) ?? new Set<Entry>();
      this.waiting.set(campaignId, set.add(entry));
    }
    const cancel = () => this.remove(campaignId, entry);
    try {
      await this.listen();
    } catch (err) {
      cancel();
      throw err;
    }
    return { wait: (ms, signal) => this.waitFor(entry, ms, signal), cancel };
  }

  /** Arms and waits in one step, for callers that read nothing in between. */
  async wait(campaignId: string, ms: number, signal?: AbortSignal): Promise<WaitOutcome> {
    const ticket = await this.arm(campaignId);
    try {
      return await ticket.wait(ms, signal);
    } finally {
      ticket.cancel();
    }
  }

  /**
   * Reads until `read` finds something or `ms` pass, and answers what the last read found (empty
   * when the time ran out or the process is closing). Armed before each read, so no wake-up falls
   * between a read and the wait; it re-reads every few seconds on its own, in case a
   * reconnecting LISTEN missed a NOTIFY.
   */
  async readUntil<T>(key: string, ms: number, read: () => Promise<T[]>, signal?: AbortSignal): Promise<T[]> {
    const deadline = Date.now() + ms;
    for (;;) {
      const ticket = await this.arm(key);
      try {
        const rows = await read();
        const left = deadline - Date.now();
        if (rows.length > 0 || left <= 0) return rows;
        if ((await ticket.wait(Math.min(left, RECHECK_MS), signal)) === 'closed') return [];
      } finally {
        ticket.cancel();
      }
    }
  }

  /** Ends every wait (as 'closed') and stops listening. Later arms resolve 'closed' at once. */
  async close(): Promise<void> {
    this.closed = true;
    for (const set of this.waiting.values()) for (const entry of set) settle(entry, 'closed');
    this.waiting.clear();
    const listening = this.listening;
    this.listening = null;
    const stop = await listening?.catch(() => null);
    await stop?.();
  }

  private listen(): Promise<unknown> {
    if (this.closed) return Promise.resolve();
    if (!this.listening) {
      const started = this.database.listen(this.channel, (campaignId) => this.wake(campaignId));
      this.listening = started;
      // A failed start (database unreachable) is retried by the next arm, not remembered.
      started.catch(() => {
        if (this.listening === started) this.listening = null;
      });
    }
    return this.listening;
  }

  private wake(campaignId: string): void {
    const set = this.waiting.get(campaignId);
    if (!set) return;
    for (const entry of set) settle(entry, 'woken');
  }

  private remove(campaignId: string, entry: Entry): void {
    const set = this.waiting.get(campaignId);
    if (!set?.delete(entry)) return;
    if (set.size === 0) this.waiting.delete(campaignId);
  }

  private waitFor(entry: Entry, ms: number, signal?: AbortSignal): Promise<WaitOutcome> {
    if (entry.settled) return Promise.resolve(entry.settled);
    if (signal?.aborted) return Promise.resolve('closed');
    return new Promise<WaitOutcome>((resolve) => {
      const onAbort = () => settle(entry, 'closed');
      const timer = setTimeout(() => settle(entry, 'timeout'), Math.max(0, ms));
      signal?.addEventListener('abort', onAbort, { once: true });
      entry.resolve = (outcome) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        resolve(outcome);
      };
    });
  }
}

/** The first outcome wins; a wake-up before anyone waits is remembered for the wait. */
function settle(entry: Entry, outcome: WaitOutcome): void {
  if (entry.settled) return;
  entry.settled = outcome;
  const resolve = entry.resolve;
  entry.resolve = null;
  resolve?.(outcome);
}
