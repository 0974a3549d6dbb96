// A load-generator thread for the wake-up measurements (bench/held-calls.ts): it holds its share
// of the waiting calls (raw JSON-RPC POSTs) and reports when each answer arrived and how many
// items of workerData.list it carried. Plain JavaScript so the thread needs no TypeScript loader.
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, request } from 'undici';

const { calls, list } = workerData;
const agent = new Agent({ connections: 2000, pipelining: 1 });

async function hold({ url, headers, body }) {
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
  if (!result || result.isError) throw new Error(`a waiting call failed: ${text.slice(0, 300)}`);
  return { at, count: result.structuredContent[list].length };
}

const pending = calls.map(hold);
parentPort.postMessage({ started: calls.length });
parentPort.postMessage({ done: await Promise.all(pending) });
