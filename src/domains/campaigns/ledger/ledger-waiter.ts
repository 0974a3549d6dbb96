import type { Database } from '../../../storage/database.ts';
import { NotifyWaiter, type WaitOutcome, type WaitTicket } from '../../../storage/notify-waiter.ts';
import { LEDGER_CHANNEL } from '../core/ledger.ts';

export type { WaitOutcome };
export type LedgerTicket = WaitTicket;

/** The per-process ledger wake-up for events_watch: ONE `LISTEN cairn_ledger` (storage/notify-waiter.ts). */
export class LedgerWaiter extends NotifyWaiter {
  constructor(database: Database) {
    super(database, LEDGER_CHANNEL);
  }
}
