import { afterAll, describe, expect, it } from 'vitest';
import { DomainError } from '../kernel/errors.ts';
import { Sandbox } from './sandbox.ts';
import type { ExecResult } from './types.ts';

const sandbox = new Sandbox({ maxJobs: 2, maxWaiting: 4, niceness: 0 });
afterAll(() => sandbox.close());

const loop = { files: [{ path: 'loop.js', content: 'for (;;) {}' }], entry: 'loop.js', timeoutMs: 800 };

/** The longest gap between setImmediate/setTimeout(0) ticks on this (the main) thread until stopped. */
function watchTicks(): { stop(): number } {
  let last = performance.now();
  let worst = 0;
  let running = true;
  const tick = (): void => {
    const now = performance.now();
    worst = Math.max(worst, now - last);
    last = now;
    if (running) setTimeout(() => setImmediate(tick), 0);
  };
  tick();
  return {
    stop() {
      running = false;
      return worst;
    },
  };
}

describe('Sandbox capacity', () => {
  it('takes 20 parallel tight loops on 2 threads: the excess waits or gets DEGRADED_MODE, and the main thread stays responsive', async () => {
    // Warm both threads first, so the storm measures running programs, not thread start-up.
    await Promise.all([sandbox.exec({ ...loop, timeoutMs: 50 }), sandbox.exec({ ...loop, timeoutMs: 50 })]);
    const ticks = watchTicks();
    const started = performance.now();
    const settled = await Promise.allSettled(Array.from({ length: 20 }, () => sandbox.exec(loop)));
    const elapsed = performance.now() - started;
    const worstGapMs = ticks.stop();

    const ran = settled.filter((s): s is PromiseFulfilledResult<ExecResult> => s.status === 'fulfilled');
    const refused = settled.filter((s): s is PromiseRejectedResult => s.status === 'rejected');
    // maxJobs run, maxWaiting wait; the rest are refused at once.
    expect(ran).toHaveLength(6);
    expect(refused).toHaveLength(14);
    for (const { value } of ran) {
      expect(value).toMatchObject({ exitCode: 124, limit: 'TIME' });
      expect(value.timeMs).toBeLessThan(800 + 600);
    }
    for (const { reason } of refused) {
      expect(reason).toBeInstanceOf(DomainError);
      expect(reason).toMatchObject({ code: 'DEGRADED_MODE', details: { retry_after_seconds: 5 } });
    }
    // Three rounds of two runs, never more than two at once.
    expect(elapsed).toBeGreaterThan(3 * 800 - 100);
    expect(worstGapMs).toBeLessThan(200);
    expect(sandbox.activeJobs).toBe(0);
    expect(sandbox.waitingJobs).toBe(0);

    const after = await sandbox.exec({
      files: [{ path: 'ok.js', content: "console.log('ok')" }],
      entry: 'ok.js',
    });
    expect(after).toMatchObject({ exitCode: 0, stdout: 'ok\n' });
  });

  it('keeps answering while threads are terminated and replaced under load', async () => {
    const blocked = {
      files: [{ path: 'big.js', content: '(3n ** 600000n).toString();' }],
      entry: 'big.js',
      timeoutMs: 300,
    };
    const before = sandbox.terminatedWorkers;
    const ticks = watchTicks();
    const results = await Promise.all(Array.from({ length: 4 }, () => sandbox.exec(blocked)));
    expect(ticks.stop()).toBeLessThan(200);
    for (const result of results) expect(result).toMatchObject({ exitCode: 124, limit: 'TIME' });
    expect(sandbox.terminatedWorkers).toBe(before + 4);
    const after = await sandbox.exec({
      files: [{ path: 'ok.js', content: 'console.log(1 + 1)' }],
      entry: 'ok.js',
    });
    expect(after).toMatchObject({ exitCode: 0, stdout: '2\n' });
  });

  it("keeps one owner's flood to its share: another owner's program runs at once (issue 40)", async () => {
    const shared = new Sandbox({ maxJobs: 2, maxWaiting: 8, niceness: 0 });
    try {
      // One owner, twelve runs, an endless loop each: one thread and half the line are theirs.
      const flood = Array.from({ length: 12 }, (_, i) =>
        shared.exec({ ...loop, timeoutMs: 1_500 }, { owner: 'own_flood', run: `run_${i}` }),
      );
      const settled = Promise.allSettled(flood);
      await new Promise((r) => setTimeout(r, 100));
      expect(shared.activeJobs).toBe(1);
      // Another owner's program takes the thread kept free, and answers before the flood's
      // second loop ends (they run one after another, 1.5 s each): it is not queued behind the
      // flood. Asserted as an order, not a time, so a loaded machine cannot fail it.
      let loopsEnded = 0;
      for (const run of flood)
        void run.then(
          () => loopsEnded++,
          () => {},
        );
      const other = await shared.exec(
        { files: [{ path: 'ok.js', content: "console.log('mine')" }], entry: 'ok.js' },
        { owner: 'own_other', run: 'run_other' },
      );
      expect(other).toMatchObject({ exitCode: 0, stdout: 'mine\n' });
      expect(loopsEnded).toBeLessThan(2);
      const outcomes = await settled;
      const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
      // 1 running and 4 waiting (half the line of 8); the other 7 are told their share is in use.
      expect(refused).toHaveLength(7);
      for (const { reason } of refused) {
        expect(reason).toMatchObject({ code: 'DEGRADED_MODE', details: { share: 'OWNER' } });
      }
    } finally {
      await shared.close();
    }
  }, 60_000);

  it('runs one program of a run at a time: the second call is a retryable CONFLICT (issue 40)', async () => {
    const share = { owner: 'own_a', run: 'run_a' };
    const first = sandbox.exec({ ...loop, timeoutMs: 300 }, share);
    await expect(sandbox.exec({ ...loop, timeoutMs: 300 }, share)).rejects.toMatchObject({
      code: 'CONFLICT',
      retryable: true,
      details: { run_id: 'run_a' },
    });
    expect(await first).toMatchObject({ exitCode: 124 });
    // Once it has answered, the run may run a program again.
    expect(await sandbox.exec({ ...loop, timeoutMs: 50 }, share)).toMatchObject({ exitCode: 124 });
  });

  it('refuses runs after close', async () => {
    const closing = new Sandbox({ maxJobs: 1, maxWaiting: 0 });
    await closing.close();
    await expect(closing.exec(loop)).rejects.toThrow('closed');
  });
});
