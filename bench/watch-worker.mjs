// A load-generator thread for the campaign benchmark's wake-up test: it holds its share of the
// waiting calls (events_watch, or the baseline's) and reports when each answer arrived. Plain JavaScript so the
// thread needs no TypeScript loader; several of them keep answer-parsing off one event loop,
// so the figure measures Cairn rather than the load generator.
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, request } from 'undici';

const { calls } = workerData;
const agent = new Agent({ connections: 2000, pipelining: 1 });

async function watch({ url, headers, body }) {
  const res = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers,
    body,
    headersTimeout: 120_000,
    bodyTimeout: 120_000,
  });
  const text = await res.body.text();
  const at = performance.timeOrigin + performance.now();
  const json = text.startsWith('{')
    ? text
    : (text.split('\n').find((l) => l.startsWith('data: ')) ?? '').slice(6);
  const result = JSON.parse(json).result;
  if (!result || result.isError) throw new Error(`the waiting call failed: ${text.slice(0, 300)}`);
  return { at, events: result.structuredContent.events.length };
}

const pending = calls.map(watch);
parentPort.postMessage({ started: calls.length });
parentPort.postMessage({ done: await Promise.all(pending) });
