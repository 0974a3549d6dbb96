/** Time is injected (DESIGN.md convention 5): services read a Clock, never `Date.now()`. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests can move by hand to expire leases, tokens and grants without sleeping. */
export class FakeClock implements Clock {
  private current: number;

  constructor(start: Date = new Date('2026-01-01T00:00:00Z')) {
    this.current = start.getTime();
  }

  now(): Date {
    return new Date(this.current);
  }

  advance(ms: number): void {
    this.current += ms;
  }

  set(at: Date): void {
    this.current = at.getTime();
  }
}
