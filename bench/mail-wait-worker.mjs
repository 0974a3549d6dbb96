// A load-generator thread for the mail benchmark's wake-up test: it holds its share of the
// waiting campaign_mail_wait calls (raw JSON-RPC POSTs on open MCP sessions) and reports when
// each answer arrived and how many mails it carried. Plain JavaScript so the thread needs no
// TypeScript loader; several of them keep answer-parsing off one event loop, so the figure
// measures Cairn rather than the load generator (as bench/watch-worker.mjs does for events_watch).
import { parentPort, workerData } from 'node:worker_threads';
import { Agent, request } from 'undici';

const { calls } = workerData;
const agent = new Agent({ connections: 2000, pipelining: 1 });

async function wait({ url, headers, body }) {
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
  return { at, mails: result.structuredContent.mails.length };
}

const pending = calls.map(wait);
parentPort.postMessage({ started: calls.length });
parentPort.postMessage({ done: await Promise.all(pending) });
