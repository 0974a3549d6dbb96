import { FairShares } from '../kernel/fair-shares.ts';
import { ParserBusy } from './types.ts';

/** Weight of the newest job in the running estimate of how long a job takes. */
const RUN_TIME_WEIGHT = 0.2;

/** A job waiting in line for a thread. */
interface Waiter {
  /** Whose job it is (kernel/tenant.ts); undefined for work of nobody in particular. */
  tenant: string | undefined;
  /** Hands the waiter the slot of a job that just finished. */
  start(): void;
  /** Refuses the waiter without a slot (the pool closed). */
  fail(error: Error): void;
}

/**
 * The parser pool's gate (issue 40): at most `maxJobs` jobs run at once; a job past that waits in
 * line, first come first served, while the line is short and the wait it would face is under
 * `maxWaitMs`; otherwise it is refused at once (ParserBusy). Fair shares keep one tenant from
 * holding every slot or the whole line: past its own share it is told ParserBusy('OWNER') while
 * the others go on. The pool (pool.ts) runs the jobs; this only says when each may start.
 */
export class Admission {
  private runningJobs = 0;
  private readonly shares: FairShares;
  /** How long a job has taken lately, in ms (smoothed; 0 before the first one ends). */
  private typicalRunMs = 0;
  /** Jobs waiting for a thread, first come first served; each is started by the job it follows. */
  private readonly waiting: Waiter[] = [];
  private closed = false;

  constructor(
    private readonly maxJobs: number,
    private readonly maxWaiting: number,
    private readonly maxWaitMs: number,
  ) {
    this.shares = new FairShares(maxJobs, maxWaiting);
  }

  get running(): number {
    return this.runningJobs;
  }

  get waitingJobs(): number {
    return this.waiting.length;
  }

  /** A job that ran to its end took `ms`: the estimate of a typical run follows it. */
  ran(ms: number): void {
    this.typicalRunMs =
      this.typicalRunMs === 0 ? ms : (1 - RUN_TIME_WEIGHT) * this.typicalRunMs + RUN_TIME_WEIGHT * ms;
  }

  /** Refuses every waiting job and every later one. */
  close(closedError: () => Error): void {
    this.closed = true;
    for (const waiter of this.waiting.splice(0)) waiter.fail(closedError());
  }

  /** Resolves once the job holds a slot; the caller must then release it. */
  async acquire(tenant: string | undefined, closedError: () => Error): Promise<void> {
    if (this.closed) throw closedError();
    // Counted synchronously, so a burst of calls can never put more than maxJobs in flight.
    if (this.runningJobs < this.maxJobs && this.shares.mayStart(tenant)) {
      this.started(tenant);
      return;
    }
    if (this.shares.lineFull(tenant)) throw new ParserBusy('OWNER');
    if (this.waiting.length >= this.maxWaiting) throw new ParserBusy();
    // Refused at the door rather than after waiting: a caller told to retry only after it has
    // waited maxWaitMs has lost that time and its place. The newcomer starts once the jobs ahead
    // of it and one running job have ended, about one typical run per maxJobs of them.
    const expectedWaitMs = (Math.floor(this.waiting.length / this.maxJobs) + 1) * this.typicalRunMs;
    // A tenant held back by its own running jobs waits on its own share, not on the instance.
    const share = this.shares.mayStart(tenant) ? 'INSTANCE' : 'OWNER';
    if (expectedWaitMs > this.maxWaitMs) throw new ParserBusy(share);
    // The finishing job hands its slot over directly, so `running` never dips below the line.
    this.shares.queued(tenant);
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        tenant,
        start: () => {
          clearTimeout(timer);
          resolve();
        },
        fail: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) {
          this.waiting.splice(index, 1);
          this.shares.dequeued(tenant);
        }
        reject(new ParserBusy(share));
      }, 2 * this.maxWaitMs);
      this.waiting.push(waiter);
    });
  }

  private started(tenant: string | undefined): void {
    this.runningJobs++;
    this.shares.started(tenant);
  }

  /** Frees the slot, then starts the first waiting jobs whose tenants are within their shares. */
  release(tenant: string | undefined): void {
    this.runningJobs--;
    this.shares.finished(tenant);
    while (this.runningJobs < this.maxJobs) {
      const next = this.shares.takeNext(this.waiting);
      if (!next) break;
      this.started(next.tenant);
      next.start();
    }
  }
}
