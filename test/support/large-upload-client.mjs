// Large uploads from a process of their own, and /health sampled from another, so neither the
// uploads' nor the sampler's work loads the server's event loop or delays the other.
//   node large-upload-client.mjs <base url> <owner token> <count> <MB of file>
// sends `count` imports of that size at once with the owner token while GET /health is timed
// every 10 ms, and prints one JSON line: the imports' statuses and codes, /health's latencies.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const [base, token, countArg, mbArg] = process.argv.slice(2);

if (token === '--sample') {
  // The sampler: times GET /health until its standard input closes, then prints the times.
  const latencies = [];
  let done = false;
  process.stdin.on('end', () => (done = true)).resume();
  while (!done) {
    const started = performance.now();
    const res = await fetch(`${base}/health`);
    await res.arrayBuffer();
    latencies.push(Math.round((performance.now() - started) * 10) / 10);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  console.log(JSON.stringify(latencies));
} else {
  const count = Number(countArg);
  const fileBytes = Math.floor(Number(mbArg) * 1_000_000);
  // Long lines of plain text, unique per upload, as base64: what a large log or text import is.
  const bodies = Array.from({ length: count }, (_, i) => {
    const line = `upload ${i} at ${Date.now()}: ${'x'.repeat(4_000)}\n`;
    const text = line.repeat(Math.max(1, Math.floor(fileBytes / line.length)));
    return Buffer.from(JSON.stringify({ format: 'text', data_base64: Buffer.from(text).toString('base64') }));
  });
  const sampler = spawn(process.execPath, [fileURLToPath(import.meta.url), base, '--sample'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let sampled = '';
  sampler.stdout.on('data', (chunk) => (sampled += chunk));
  const closed = new Promise((resolve) => sampler.on('close', resolve));
  // A few samples of the idle server first: the baseline the figures under load compare with.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = performance.now();
  const uploads = await Promise.all(
    bodies.map(async (body) => {
      const res = await fetch(`${base}/v1/research/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body,
      });
      const json = await res.json();
      return {
        status: res.status,
        code: json.error?.code ?? null,
        reason: json.error?.details?.reason ?? null,
      };
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  sampler.stdin.end();
  await closed;
  console.log(
    JSON.stringify({ body_bytes: bodies[0].length, seconds, uploads, latencies: JSON.parse(sampled) }),
  );
}
