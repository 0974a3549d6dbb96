import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgent, type TestAgent } from '../support/factories.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * The direct tools/call path (src/transport/mcp/tool-call.ts) against the MCP SDK's path, side
 * by side: two servers over one database, one as deployed and one with CAIRN_MCP_DIRECT_CALLS
 * off, get the same raw request and must give the same answer (status, kind of body, JSON-RPC
 * message). Only what differs between any two requests is normalised: request ids and times.
 * There is no exception. Where the SDK alone would answer otherwise, both paths now answer
 * alike by design (docs/decisions.md, Errors): params that do not fit are a readable -32602,
 * not -32603 with zod's dump; task metadata is ignored (MCP: a server without the tasks
 * capability processes the request normally), not -32603 "does not support task creation".
 */

let direct: TestServer;
let viaSdk: TestServer;
let agent: TestAgent;

beforeAll(async () => {
  direct = await startTestServer();
  viaSdk = await startTestServer({ database: direct.database, env: { CAIRN_MCP_DIRECT_CALLS: 'false' } });
  agent = await createAgent(direct.app.services.identity, { mode: 'READ' });
});
afterAll(async () => {
  await viaSdk?.close();
  await direct?.close();
});

interface Shape {
  /** The raw body, or a value to send as JSON. */
  body: unknown;
  /** Headers over the usual ones; undefined removes one. */
  headers?: Record<string, string | undefined>;
}

const call = (params: unknown, envelope: Record<string, unknown> = {}): Shape => ({
  body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params, ...envelope },
});
const whoami = { name: 'identity_whoami', arguments: {} };

/** Every shape both paths must answer alike. */
const SHAPES: Record<string, Shape> = {
  'a valid call': call(whoami),
  'a valid call without arguments': call({ name: 'identity_whoami' }),
  'an unknown tool name': call({ name: 'identity_whoamii', arguments: {} }),
  'arguments failing the tool schema': call({ name: 'fetch_text', arguments: { url: 5 } }),
  'an empty arguments object for a tool with required arguments': call({ name: 'fetch_text', arguments: {} }),
  'arguments an array': call({ name: 'identity_whoami', arguments: [1, 2] }),
  'arguments a string': call({ name: 'identity_whoami', arguments: 'text' }),
  'arguments a number': call({ name: 'identity_whoami', arguments: 42 }),
  'arguments null': call({ name: 'identity_whoami', arguments: null }),
  'a NUL in the arguments': call({ name: 'identity_whoami', arguments: { note: 'a\u0000b' } }),
  'no name': call({ arguments: {} }),
  'a name that is not a string': call({ name: 42, arguments: {} }),
  'a name null': call({ name: null, arguments: {} }),
  'no params': { body: { jsonrpc: '2.0', id: 1, method: 'tools/call' } },
  'params an array': call(['identity_whoami']),
  'params a string': call('identity_whoami'),
  'params null': call(null),
  'extra keys in params': call({ ...whoami, extra: true, other: { x: 1 } }),
  '_meta with a progressToken': call({ ...whoami, _meta: { progressToken: 'p-1' } }),
  '_meta with a numeric progressToken': call({ ...whoami, _meta: { progressToken: 7 } }),
  '_meta not an object': call({ ...whoami, _meta: 'x' }),
  'a progressToken of the wrong type': call({ ...whoami, _meta: { progressToken: { a: 1 } } }),
  'a task (this server runs no tasks)': call({ ...whoami, task: { ttl: 1000 } }),
  'a task and no name': call({ arguments: {}, task: { ttl: 1000 } }),
  'a task that is not a task': call({ ...whoami, task: 5 }),
  'id a string': call(whoami, { id: 'call-1' }),
  'id an empty string': call(whoami, { id: '' }),
  'id 0': call(whoami, { id: 0 }),
  'id negative': call(whoami, { id: -7 }),
  'id the largest safe integer': call(whoami, { id: Number.MAX_SAFE_INTEGER }),
  'id past the safe integers': {
    body: '{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"identity_whoami"}}',
  },
  'id 1e20': {
    body: '{"jsonrpc":"2.0","id":1e20,"method":"tools/call","params":{"name":"identity_whoami"}}',
  },
  'id null': call(whoami, { id: null }),
  'id fractional': call(whoami, { id: 1.5 }),
  'id a boolean': call(whoami, { id: true }),
  'id an object': call(whoami, { id: { a: 1 } }),
  'id and bad params': call({ name: 'identity_whoami', arguments: [] }, { id: 'bad-1' }),
  'no jsonrpc': { body: { id: 1, method: 'tools/call', params: whoami } },
  'jsonrpc 1.0': call(whoami, { jsonrpc: '1.0' }),
  'jsonrpc as a number': call(whoami, { jsonrpc: 2 }),
  'an extra top-level key': call(whoami, { extra: 1 }),
  'method with different case': call(whoami, { method: 'Tools/Call' }),
  'a notification of tools/call (no id)': { body: { jsonrpc: '2.0', method: 'tools/call', params: whoami } },
  'a notification of tools/call with bad params': {
    body: { jsonrpc: '2.0', method: 'tools/call', params: { arguments: 5 } },
  },
  'a batch of one call': { body: [call(whoami).body] },
  'a batch with bad params': { body: [call({ name: 'identity_whoami', arguments: 'x' }).body] },
  'an empty batch': { body: [] },
  'a body that is a JSON string': { body: '"tools/call"' },
  'a body that is null': { body: 'null' },
  'a body that is not JSON': { body: '{"jsonrpc": "2.0", "id": 1, "method": ' },
  'an empty body': { body: '' },
  'a huge name': call({ name: 'x'.repeat(200_000), arguments: {} }),
  'a unicode name': call({ name: 'identité_whoami✓', arguments: {} }),
  'a name with a lone surrogate': {
    body: '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"identity_\\ud800whoami"}}',
  },
  'an empty name': call({ name: '', arguments: {} }),
  'Accept without text/event-stream': { ...call(whoami), headers: { accept: 'application/json' } },
  'Accept without application/json': { ...call(whoami), headers: { accept: 'text/event-stream' } },
  'Accept */*': { ...call(whoami), headers: { accept: '*/*' } },
  'no Accept': { ...call(whoami), headers: { accept: undefined } },
  'Accept with parameters': {
    ...call(whoami),
    headers: { accept: 'application/json;q=0.9, text/event-stream;q=0.5' },
  },
  'content-type with a charset': {
    ...call(whoami),
    headers: { 'content-type': 'application/json; charset=utf-8' },
  },
  'content-type in capitals': { ...call(whoami), headers: { 'content-type': 'Application/JSON' } },
  'content-type text/plain': { ...call(whoami), headers: { 'content-type': 'text/plain' } },
  'content-type application/json-seq': {
    ...call(whoami),
    headers: { 'content-type': 'application/json-seq' },
  },
  'no content-type': { ...call(whoami), headers: { 'content-type': undefined } },
  'a supported MCP-Protocol-Version': {
    ...call(whoami),
    headers: { 'mcp-protocol-version': '2025-06-18' },
  },
  'an unsupported MCP-Protocol-Version': {
    ...call(whoami),
    headers: { 'mcp-protocol-version': '1999-01-01' },
  },
  'an empty MCP-Protocol-Version': { ...call(whoami), headers: { 'mcp-protocol-version': '' } },
  'an unsupported MCP-Protocol-Version with bad params': {
    ...call({ name: 'identity_whoami', arguments: 5 }),
    headers: { 'mcp-protocol-version': '1999-01-01' },
  },
  'Accept wrong and bad params': {
    ...call({ name: 'identity_whoami', arguments: 5 }),
    headers: { accept: 'application/json' },
  },
};

interface Answer {
  status: number;
  /** json, sse, empty or the media type itself. */
  kind: string;
  /** The JSON body, or the JSON-RPC messages of SSE data frames. */
  body: unknown;
}

async function send(server: TestServer, shape: Shape): Promise<Answer> {
  const headers: Record<string, string> = {
    authorization: `Bearer ${agent.key}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  for (const [name, value] of Object.entries(shape.headers ?? {})) {
    if (value === undefined) delete headers[name];
    else headers[name] = value;
  }
  const body = typeof shape.body === 'string' ? shape.body : JSON.stringify(shape.body);
  const res = await fetch(`${server.url}/mcp`, { method: 'POST', headers, body });
  const text = await res.text();
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim();
  if (text === '') return { status: res.status, kind: 'empty', body: null };
  if (type === 'application/json') return { status: res.status, kind: 'json', body: JSON.parse(text) };
  if (type === 'text/event-stream') {
    const frames = text
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => JSON.parse(line.slice(5)));
    return { status: res.status, kind: 'sse', body: frames };
  }
  return { status: res.status, kind: type, body: text };
}

/** Values that differ between any two requests (ids of requests, times); nothing else. */
function normalise(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, k)]));
  }
  if (typeof value !== 'string') return value;
  if (key === 'request_id') return '<request id>';
  if (/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(value)) return '<time>';
  // A tool result's text is the structured content, serialised: compare it parsed.
  if (key === 'text' && value.startsWith('{')) {
    try {
      return normalise(JSON.parse(value));
    } catch {
      return value;
    }
  }
  return value;
}

describe('the direct tools/call path answers as the SDK path does', () => {
  it.each(Object.entries(SHAPES))('%s', async (_name, shape) => {
    const [a, b] = [await send(direct, shape), await send(viaSdk, shape)];
    expect(normalise(a)).toEqual(normalise(b));
  });
});

describe('what the comparison rests on', () => {
  it('the two servers do take different paths: the SDK writes result ahead of jsonrpc', async () => {
    const raw = async (server: TestServer) =>
      (
        await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${agent.key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
          },
          body: JSON.stringify(call(whoami).body),
        })
      ).text();
    expect(await raw(direct)).toMatch(/^\{"jsonrpc":"2\.0","id":1,"result":/);
    expect(await raw(viaSdk)).toMatch(/^\{"result":/);
  });

  it('params that do not fit tools/call are -32602, said readably, on both paths and in batches (the SDK alone says -32603 with a dump)', async () => {
    for (const server of [direct, viaSdk]) {
      for (const shape of [SHAPES['arguments an array']!, SHAPES['a batch with bad params']!]) {
        const { body } = await send(server, shape);
        // (The SDK answers a batch of one with the bare answer, not a list of one.)
        expect(Array.isArray(body) ? body[0] : body).toEqual({
          jsonrpc: '2.0',
          id: 1,
          error: {
            code: -32602,
            message:
              'Invalid params for tools/call: params.arguments: Invalid input: expected record, received ' +
              `${Array.isArray(shape.body) ? 'string' : 'array'}. Send {name, arguments} with arguments an object.`,
          },
        });
      }
    }
  });

  it('task metadata is ignored on both paths, as MCP asks of a server without the tasks capability', async () => {
    for (const server of [direct, viaSdk]) {
      const { body } = await send(server, SHAPES['a task (this server runs no tasks)']!);
      expect(body).toMatchObject({ id: 1, result: { structuredContent: { agent_id: agent.agentId } } });
    }
  });

  it("other methods keep the SDK handlers, and an unknown one is the SDK's -32601", async () => {
    const list = await send(viaSdk, { body: { jsonrpc: '2.0', id: 2, method: 'tools/list' } });
    expect((list.body as { result: { tools: unknown[] } }).result.tools.length).toBeGreaterThan(2);
    const unknown = await send(viaSdk, { body: { jsonrpc: '2.0', id: 3, method: 'tools/run' } });
    expect(unknown.body).toEqual({
      jsonrpc: '2.0',
      id: 3,
      error: { code: -32601, message: 'Method not found' },
    });
  });
});
