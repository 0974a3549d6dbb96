import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { BENCH_CONDITIONS, MINIMAL_CAMPAIGN_ID, MINIMAL_TASK_ID } from './conditions.ts';

/**
 * The baseline of the mcp benchmark: the SDK's simplest stateless Streamable HTTP server, with
 * one tool that returns a constant. It is built per request, exactly as Cairn builds its server,
 * so the ratio against it measures what Cairn adds (bearer lookup, sessions, operation runner,
 * Fastify), not the cost of the SDK itself.
 *
 * For the DB-touching ratio (issue 23 item 3) it also answers task_get and message_append from
 * memory: a task kept in a Map, shaped like Cairn's answer, and messages pushed onto an array
 * with a sequence number. Arguments are checked by zod schemas as the SDK does for any tool.
 *
 * Run as a child process: `PORT=… node --import tsx bench/minimal-server.ts`.
 */

/** Shaped like Cairn's identity_whoami answer, so both servers serialize a similar payload. */
const WHOAMI = {
  agent_id: 'agt_01JZ0000000000000000000000',
  display_name: 'bench',
  runtime: 'bench',
  kind: 'OWNER_CREATED',
  owner: { owner_id: 'own_01JZ0000000000000000000000', email: 'bench@example.org' },
  mode: 'NONE',
  active: false,
  inactive_reason: {
    code: 'NO_MODE_ACTIVATED',
    message: 'New identities are inert until the owner activates a mode (for example public reading, READ).',
  },
  about_you: {
    label: 'CLAIMED_NOT_VERIFIED',
    model: null,
    software: null,
    purpose: null,
    contacts: [],
    organization: null,
    updated_at: null,
    ignored: [],
    ask_user:
      'May I tell Cairn my model, software, purpose, contacts, organization? Others will see them labelled as claimed, not verified; each is optional.',
  },
};
const WHOAMI_TEXT = JSON.stringify(WHOAMI);

/** The one task task_get answers, shaped like Cairn's task_get of an OPEN task. */
const TASKS = new Map<string, Record<string, unknown>>([
  [
    MINIMAL_TASK_ID,
    {
      task_id: MINIMAL_TASK_ID,
      campaign_id: MINIMAL_CAMPAIGN_ID,
      title: 'bench task',
      objective: 'bench',
      acceptance: 'bench',
      conditions: BENCH_CONDITIONS,
      status: 'OPEN',
      version: 1,
      created_by: 'agt_01JZ0000000000000000000000',
      assignee_id: null,
      parent_task_id: null,
      editing: { can_edit: true, edit_count: 0, last_edited_at: null },
      lease: null,
      submissions: [],
      reward: null,
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    },
  ],
]);
const MESSAGES: Array<Record<string, unknown>> = [];

function buildServer(): McpServer {
  const server = new McpServer({ name: 'bench-minimal', version: '1.0.0' });
  server.registerTool('whoami', { description: 'Returns a constant identity.' }, async () => ({
    content: [{ type: 'text', text: WHOAMI_TEXT }],
    structuredContent: WHOAMI,
  }));
  server.registerTool(
    'task_get',
    {
      description: 'Returns a task kept in memory.',
      inputSchema: { task_id: z.string().min(1), campaign_id: z.string().optional() },
    },
    async ({ task_id }) => {
      const task = TASKS.get(task_id);
      if (!task) return { isError: true, content: [{ type: 'text', text: `no task ${task_id}` }] };
      return { content: [{ type: 'text', text: JSON.stringify(task) }], structuredContent: task };
    },
  );
  server.registerTool(
    'message_append',
    {
      description: 'Appends a message to a list in memory.',
      inputSchema: {
        campaign_id: z.string().min(1),
        type: z.enum(['NOTE', 'QUESTION', 'ANSWER', 'REFUSAL']),
        content: z.string().min(1).max(20_000),
        idempotency_key: z.string().min(1).max(200),
      },
    },
    async (input) => {
      const created_at = new Date().toISOString();
      const seq = MESSAGES.push({ ...input, created_at });
      const answer = { message_id: `msg_${String(seq).padStart(26, '0')}`, seq, created_at };
      return { content: [{ type: 'text', text: JSON.stringify(answer) }], structuredContent: answer };
    },
  );
  return server;
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const url = req.url ?? '/';
  if (req.method === 'GET' && url === '/health') return sendJson(res, 200, { status: 'ok' });
  if (url !== '/mcp') return sendJson(res, 404, { error: 'not found' });
  if (req.method !== 'POST') {
    // Stateless: no standalone stream and no session to end, as in the SDK's stateless example.
    res.setHeader('allow', 'POST');
    return sendJson(res, 405, {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Method not allowed.' },
      id: null,
    });
  }
  let body: unknown;
  try {
    body = await readJson(req);
  } catch {
    return sendJson(res, 400, { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
  }
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

const port = Number(process.env.PORT ?? 0);
const http = createServer((req, res) => {
  handle(req, res).catch((err: unknown) => {
    process.stderr.write(`minimal server: ${(err as Error)?.stack ?? err}\n`);
    if (!res.headersSent) sendJson(res, 500, { error: 'internal error' });
    else res.end();
  });
});
http.listen(port, '127.0.0.1');
// Nothing to flush: a stateless baseline can stop at once.
process.on('SIGTERM', () => process.exit(0));
