import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import type { FastifyRequest } from 'fastify';
import type { Caller, InboxMessage, SessionService } from '../../domains/identity/index.ts';
import { isRecord } from './modern-request.ts';
import { createMcpServer, type McpDeps } from './server.ts';

/**
 * The 2025-era requests on /mcp: handed to the v1 SDK's transport (one server per request, its
 * session kept in the database), the session opened for an answered initialize, and the body
 * cleaned of what the SDK would refuse.
 */

/** Headers the SDK transport reads; nothing else of the request reaches it. */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'] as const;

export async function dispatch(
  req: FastifyRequest,
  caller: Caller,
  deps: McpDeps & { sessions: SessionService; baseUrl: string },
  takeInbox: (() => Promise<InboxMessage[]>) | null,
  gone: AbortSignal,
): Promise<Response> {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = header(req, name);
    if (value) headers.set(name, value);
  }
  const sessionId = header(req, 'mcp-session-id');
  // Authentication checked that a session id sent along is the caller's open session.
  const session = sessionId && req.mcpAuth?.sessionOpen ? { id: sessionId, service: deps.sessions } : null;
  const server = createMcpServer(caller, deps, req.id, takeInbox, req.log, gone, session);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    const request = new Request(`${deps.baseUrl}/mcp`, { method: 'POST', headers });
    return await transport.handleRequest(request, { parsedBody: req.body });
  } finally {
    await server.close();
  }
}

/**
 * Opens a session only for an initialize the SDK answered with a result (not an error), with
 * the protocol version it actually negotiated.
 */
export async function openSession(sessions: SessionService, caller: Caller, body: unknown, answer: string) {
  let result: { protocolVersion?: unknown } | undefined;
  try {
    result = JSON.parse(answer)?.result;
  } catch {
    return null;
  }
  if (!result || typeof result.protocolVersion !== 'string') return null;
  const clientInfo = (body as { params?: { clientInfo?: { name?: unknown; version?: unknown } } }).params
    ?.clientInfo;
  return sessions.open(caller.agent.id, result.protocolVersion, {
    name: typeof clientInfo?.name === 'string' ? clientInfo.name : undefined,
    version: typeof clientInfo?.version === 'string' ? clientInfo.version : undefined,
  });
}

/**
 * Cairn declares no tasks capability, so task metadata (`params.task`) is ignored, as MCP asks of
 * such a receiver: "MUST process requests of that type normally, ignoring any task-augmentation
 * metadata" (2025-11-25, Tasks, Behavior Requirements). The SDK would refuse such a request
 * instead (-32603 "Server does not support task creation"), so the key is removed before either
 * path reads the body.
 */
export function ignoreTaskMetadata(body: unknown): void {
  for (const message of Array.isArray(body) ? body : [body]) {
    const params = isRecord(message) ? message.params : undefined;
    if (isRecord(params) && 'task' in params) delete params.task;
  }
}

/** An initialize request: a single JSON-RPC request (with an id) whose method is initialize. */
export function isInitialize(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === 'initialize' &&
    'id' in body
  );
}

export function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
