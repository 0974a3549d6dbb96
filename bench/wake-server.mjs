// The plain baseline of the campaign benchmark's wake-up: node:http alone, in its own process
// like `cairn serve`, holding every POST /wait until POST /wake answers them all at once with a
// JSON-RPC answer the size of an events_watch one. No database, no MCP, no Cairn: what waking
// hundreds of parked HTTP requests costs on this machine.
import { createServer } from 'node:http';

const waiting = [];
const event = {
  event_id: 'evt_baseline',
  seq: 1,
  kind: 'MESSAGE_POSTED',
  payload: { content: 'x'.repeat(600) },
};
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  result: {
    content: [{ type: 'text', text: JSON.stringify({ events: [event] }) }],
    structuredContent: { events: [event] },
  },
});

const server = createServer((req, res) => {
  req.resume();
  if (req.url === '/health') return res.end('ok');
  if (req.url === '/wait') return void waiting.push(res);
  if (req.url === '/wake') {
    res.end('{}');
    for (const parked of waiting.splice(0)) {
      parked.writeHead(200, { 'content-type': 'application/json' });
      parked.end(body);
    }
    return;
  }
  res.statusCode = 404;
  res.end();
});
server.keepAliveTimeout = 120_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
