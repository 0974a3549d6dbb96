import pg from 'pg';

/**
 * One LISTEN connection for one channel, kept for as long as it is wanted (issue 14 item 1).
 *
 * A lost connection is replaced by exactly one new one: every event of a client ('error',
 * 'end', a failed connect) funnels into one place that acts only for the current client, and at
 * most one attempt is scheduled or running at a time, so no outage can leave two connections
 * listening (which once grew to 2^n after n outages). Attempts back off from half a second to
 * eight seconds, with jitter so that replicas do not reconnect in step, and go on for as long as
 * the outage lasts (issue 38: an attempt that failed once left no further attempt scheduled). What
 * was notified while no connection listened is picked up by the listeners' own periodic re-checks:
 * late at worst, never lost.
 */
export interface ListenerOptions {
  databaseUrl: string | undefined;
  channel: string;
  onPayload: (payload: string) => void;
  /** Told when the connection is lost, about each failed attempt, and when it listens again. */
  onChange?: ((change: ListenerChange) => void) | undefined;
}

/** What happened to a channel's LISTEN connection. */
export type ListenerChange =
  | { channel: string; event: 'lost'; err: Error }
  | { channel: string; event: 'retry-failed'; err: Error; attempts: number; nextInMs: number }
  | { channel: string; event: 'back'; downMs: number };

/** Whether a channel is listened to now, and since when it is not. */
export interface ListenerState {
  channel: string;
  up: boolean;
  /** When the connection was lost, while it is down. */
  downSince: Date | null;
}

const FIRST_DELAY_MS = 500;
// Kept short so a replica listens again within seconds of its database coming back, however long
// the outage was; two replicas' attempts cost the database a refused connection each.
const MAX_DELAY_MS = 8_000;

export class PgListener {
  private client: pg.Client | null = null;
  private timer: NodeJS.Timeout | null = null;
  private connecting = false;
  private failures = 0;
  private stopped = false;
  private downSince: Date | null = null;

  constructor(private readonly options: ListenerOptions) {}

  state(): ListenerState {
    return { channel: this.options.channel, up: this.client !== null, downSince: this.downSince };
  }

  /** Connects and LISTENs; throws when the first attempt fails (the server cannot start without it). */
  async start(): Promise<void> {
    await this.attempt(true);
  }

  /** Stops listening and ends the connection; nothing reconnects afterwards. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => {});
  }

  private async attempt(first = false): Promise<void> {
    if (this.stopped || this.connecting || this.client) return;
    this.connecting = true;
    const c = new pg.Client({
      connectionString: this.options.databaseUrl,
      connectionTimeoutMillis: 5_000,
      // Names the connection in pg_stat_activity, so operators (and tests) can count listeners.
      application_name: `cairn-listen:${this.options.channel}`.slice(0, 63),
    });
    c.on('notification', (n) => {
      if (c === this.client && n.channel === this.options.channel) this.options.onPayload(n.payload ?? '');
    });
    c.on('error', (err) => this.lost(c, err));
    c.on('end', () => this.lost(c, new Error('LISTEN connection ended')));
    try {
      await c.connect();
      await c.query(`LISTEN ${pg.escapeIdentifier(this.options.channel)}`);
      if (this.stopped) {
        await c.end().catch(() => {});
        return;
      }
      this.client = c;
      this.failures = 0;
      this.connecting = false;
      if (this.downSince) {
        const downMs = Date.now() - this.downSince.getTime();
        this.downSince = null;
        this.options.onChange?.({ channel: this.options.channel, event: 'back', downMs });
      }
    } catch (err) {
      c.removeAllListeners();
      c.on('error', () => {});
      await c.end().catch(() => {});
      this.connecting = false;
      if (first) throw err;
      this.failures++;
      // Scheduled only now that this attempt is over: schedule() does nothing while one runs.
      const nextInMs = this.schedule();
      this.options.onChange?.({
        channel: this.options.channel,
        event: 'retry-failed',
        err: err as Error,
        attempts: this.failures,
        nextInMs,
      });
    } finally {
      this.connecting = false;
    }
  }

  /** The current connection was lost: drop it and schedule one replacement. */
  private lost(c: pg.Client, err: Error): void {
    if (c !== this.client) return;
    this.client = null;
    c.removeAllListeners();
    c.on('error', () => {});
    void c.end().catch(() => {});
    if (this.stopped) return;
    this.downSince = new Date();
    this.options.onChange?.({ channel: this.options.channel, event: 'lost', err });
    this.schedule();
  }

  /** Schedules the next attempt unless one is due or running; returns its delay. */
  private schedule(): number {
    if (this.stopped || this.timer || this.connecting || this.client) return 0;
    const backoff = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(this.failures, 10));
    const delay = Math.round(backoff / 2 + Math.random() * (backoff / 2));
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.attempt();
    }, delay);
    this.timer.unref();
    return delay;
  }
}
