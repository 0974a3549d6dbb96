import { Worker } from 'node:worker_threads';

/**
 * Wake-up measurements (campaign's events_watch, mail's campaign_mail_wait): many tool calls held
 * waiting, one release, and when each answer arrived. The calls are spread over worker threads
 * (bench/held-call-worker.mjs) so parsing 500 answers does not queue on one event loop and the
 * figure measures the server rather than the load generator.
 */

/** A tool call sent as a raw JSON-RPC POST on an open MCP session (or to a plain baseline). */
export interface HeldCall {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface HoldOptions {
  /** Worker threads to spread the calls over. */
  threads: number;
  /** How long every call gets to arrive and start waiting before the release, ms. */
  settleMs: number;
  /** The list in each answer's structuredContent whose length is reported (events, mails). */
  list: string;
}

/**
 * Holds `calls`, lets them settle, runs `release`, and returns for each answer how long after the
 * release began it arrived (ms) and how many items of `list` it carried, with what `release` gave.
 */
export async function holdAndRelease<T>(
  calls: HeldCall[],
  o: HoldOptions,
  release: () => Promise<T>,
): Promise<{ answers: Array<{ afterMs: number; count: number }>; released: T }> {
  const threads = Array.from({ length: o.threads }, (_, t) => {
    const worker = new Worker(new URL('./held-call-worker.mjs', import.meta.url), {
      workerData: { calls: calls.filter((_, i) => i % o.threads === t), list: o.list },
    });
    return new Promise<Array<{ at: number; count: number }>>((resolve, reject) => {
      worker.on('message', (m: { done?: Array<{ at: number; count: number }> }) => m.done && resolve(m.done));
      worker.once('error', reject);
    });
  });
  await new Promise((r) => setTimeout(r, o.settleMs));
  const sentAt = performance.timeOrigin + performance.now();
  const released = await release();
  const answers = (await Promise.all(threads)).flat();
  return { answers: answers.map((a) => ({ afterMs: a.at - sentAt, count: a.count })), released };
}
