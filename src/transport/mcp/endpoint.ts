import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { LATEST_PROTOCOL_VERSION, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IdentityService } from '../../domains/identity/service.ts';
import type { SessionService } from '../../domains/identity/sessions.ts';
import type { Caller } from '../../domains/identity/types.ts';
import { authenticateRequest } from '../http/auth.ts';
import { codeForStatus, sendError } from '../http/error-handler.ts';
import { createMcpServer, type McpDeps } from './server.ts';

export interface McpEndpointDeps extends McpDeps {
  identity: IdentityService;
  sessions: SessionService;
  baseUrl: string;
}

export { SUPPORTED_PROTOCOL_VERSIONS };

/** Headers the SDK transport reads; nothing else of the request reaches it. */
const FORWARDED_HEADERS = ['accept', 'content-type', 'mcp-protocol-version'] as const;

interface InitializeMessage {
  method: 'initialize';
  params?: { protocolVersion?: string; clientInfo?: { name?: string; version?: string } };
}

/**
 * `/mcp`: MCP Streamable HTTP. Authentication and sessions are ours (database-backed);
 * JSON-RPC framing, protocol negotiation and dispatch are the official SDK's.
 */
export async function mcpRoutes(app: FastifyInstance, deps: McpEndpointDeps): Promise<void> {
  app.post(
    '/mcp',
    { schema: { tags: ['mcp'], summary: 'MCP JSON-RPC 2.0 (Streamable HTTP)' } },
    async (req, reply) => {
      const init = asInitialize(req.body);
      // initialize starts a new session, so a stale id sent with it is not checked.
      const sessionId = init ? null : (header(req, 'mcp-session-id') ?? null);
      const caller = await authenticateRequest(req, deps.identity, sessionId);

      const response = await dispatch(req, caller, deps);
      const text = response.status === 202 ? '' : await response.text();
      if (response.status >= 400) {
        // The SDK refused the HTTP request itself (media type, Accept, framing): one envelope for all refusals.
        return sendError(reply, deps.baseUrl, codeForStatus(response.status), sdkErrorMessage(text));
      }
      if (init && response.ok) {
        const id = await deps.sessions.open(caller.agent.id, negotiated(init), init.params?.clientInfo ?? {});
        reply.header('mcp-session-id', id);
      }
      reply.code(response.status);
      const type = response.headers.get('content-type');
      if (type) reply.type(type);
      return reply.send(text === '' ? undefined : text);
    },
  );

  app.delete('/mcp', { schema: { tags: ['mcp'], summary: 'End an MCP session' } }, async (req, reply) => {
    const caller = await authenticateRequest(req, deps.identity);
    const sessionId = header(req, 'mcp-session-id');
    if (!sessionId) {
      return sendError(reply, deps.baseUrl, 'BAD_REQUEST', 'Send the Mcp-Session-Id of the session to end.');
    }
    await deps.sessions.end(sessionId, caller.agent.id);
    return reply.code(204).send();
  });

  // The standalone notification stream arrives with notifications; until then SPEC allows 405.
  app.get(
    '/mcp',
    { schema: { tags: ['mcp'], summary: 'Standalone notification stream (not offered yet)' } },
    (_req, reply) =>
      sendError(
        reply.header('allow', 'POST, DELETE'),
        deps.baseUrl,
        'METHOD_NOT_ALLOWED',
        'This server offers no standalone notification stream; use POST.',
      ),
  );
}

async function dispatch(req: FastifyRequest, caller: Caller, deps: McpEndpointDeps): Promise<Response> {
  const headers = new Headers();
  for (const name of FORWARDED_HEADERS) {
    const value = header(req, name);
    if (value) headers.set(name, value);
  }
  const server = createMcpServer(caller, deps, req.id);
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

function sdkErrorMessage(text: string): string {
  try {
    return String(JSON.parse(text)?.error?.message ?? 'The MCP request was refused.');
  } catch {
    return 'The MCP request was refused.';
  }
}

function asInitialize(body: unknown): InitializeMessage | null {
  if (
    body &&
    typeof body === 'object' &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === 'initialize'
  ) {
    return body as InitializeMessage;
  }
  return null;
}

/** The version the SDK answers with: the client's if supported, else the latest. */
function negotiated(init: InitializeMessage): string {
  const asked = init.params?.protocolVersion;
  return asked && SUPPORTED_PROTOCOL_VERSIONS.includes(asked) ? asked : LATEST_PROTOCOL_VERSION;
}

function header(req: FastifyRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
