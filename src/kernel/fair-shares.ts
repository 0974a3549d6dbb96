/**
 * The fair-share rule of a shared pool of threads (issue 40), for the parser and the sandbox
 * alike: one tenant (an owner, or one mail sender's address) runs at most all slots but one and
 * waits in at most half the line, so another tenant always finds a slot soon. Work of no tenant
 * (undefined) is not limited. This keeps the counts; each pool keeps its own line and slots.
 */
export class FairShares {
  /** Slots one tenant may hold at once, and its jobs that may wait. */
  readonly runningCap: number;
  readonly waitingCap: number;
  private readonly running = new Map<string, number>();
  private readonly waiting = new Map<string, number>();

  constructor(slots: number, line: number) {
    this.runningCap = Math.max(1, slots - 1);
    this.waitingCap = Math.max(1, Math.floor(line / 2));
  }

  /** Whether this tenant may take one more slot now. */
  mayStart(tenant: string | undefined): boolean {
    return tenant === undefined || (this.running.get(tenant) ?? 0) < this.runningCap;
  }

  /** Whether this tenant's own line is full (its share of waiting is used). */
  lineFull(tenant: string | undefined): boolean {
    return tenant !== undefined && (this.waiting.get(tenant) ?? 0) >= this.waitingCap;
  }

  started(tenant: string | undefined): void {
    bump(this.running, tenant, 1);
  }

  finished(tenant: string | undefined): void {
    bump(this.running, tenant, -1);
  }

  queued(tenant: string | undefined): void {
    bump(this.waiting, tenant, 1);
  }

  dequeued(tenant: string | undefined): void {
    bump(this.waiting, tenant, -1);
  }

  /** The first job in `line` whose tenant may start now, taken out of the line; undefined if none. */
  takeNext<W extends { tenant: string | undefined }>(line: W[]): W | undefined {
    const at = line.findIndex((w) => this.mayStart(w.tenant));
    if (at < 0) return undefined;
    const [next] = line.splice(at, 1) as [W];
    this.dequeued(next.tenant);
    return next;
  }
}

function bump(counts: Map<string, number>, tenant: string | undefined, by: number): void {
  if (tenant === undefined) return;
  const n = (counts.get(tenant) ?? 0) + by;
  if (n > 0) counts.set(tenant, n);
  else counts.delete(tenant);
}
