// Shared by the example pages: a minimal MCP Streamable HTTP client over fetch.
export async function rpc(token, sessionId, body) {
  const res = await fetch('/mcp', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  // An answer may come as JSON or as SSE events; the last data line is the answer.
  const data = text.startsWith('{')
    ? text
    : (
        text
          .split('\n')
          .filter((l) => l.startsWith('data:'))
          .pop() ?? ''
      ).slice(5);
  return {
    status: res.status,
    session: res.headers.get('mcp-session-id'),
    body: data ? JSON.parse(data) : null,
  };
}

export async function connect(token) {
  const init = await rpc(token, null, {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'cairn-browser-example', version: '1' },
    },
  });
  if (init.status !== 200) throw new Error(JSON.stringify(init.body));
  await rpc(token, init.session, { jsonrpc: '2.0', method: 'notifications/initialized' });
  let id = 2;
  return {
    call: async (name, args) =>
      (
        await rpc(token, init.session, {
          jsonrpc: '2.0',
          id: id++,
          method: 'tools/call',
          params: { name, arguments: args },
        })
      ).body,
  };
}

export function show(id, value) {
  document.getElementById(id).textContent =
    typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}
