import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import type { Redis } from 'ioredis';
import type { Authenticated, IdentityService, SessionService } from '../../domains/identity/index.ts';
import { DomainError } from '../../kernel/errors.ts';
import type { Database } from '../../storage/database.ts';
import { isDatabaseUnavailable } from '../../storage/unavailable.ts';
import { sendApiSecurityHeaders } from '../../web/http/api-headers.ts';
import { whenClientGone } from '../../web/http/client-gone.ts';
import { allowOrigins } from '../../web/http/cors.ts';
import { codeForStatus, envelopeErrorHandler, sendError } from '../../web/http/error-handler.ts';
import { PrototypeKeyRefused } from '../../web/http/json-body.ts';
import { registerRateLimit } from '../../web/http/rate-limit.ts';
import { authenticateRequest, bearerToken } from './auth.ts';
import { openEventStream } from './event-stream.ts';
import { guardHostAndOrigin, requestPolicy } from './host-guard.ts';
import { dispatch, header, ignoreTaskMetadata, isInitialize, openSession } from './legacy-dispatch.ts';
import { ListenHub } from './listen-hub.ts';
import { isModernHeader, isModernPost } from './modern-request.ts';
import { postOnly, serveModern } from './modern-route.ts';
import { asJsonRpc, NotificationHub, sseEvent } from './notification-hub.ts';
import { answerUnavailable, rpcError, sdkErrorMessage } from './replies.ts';
import { refuseOutOfScope } from './scope-check.ts';
import type { McpDeps } from './server.ts';
import { mcpTools } from './surface.ts';
import { directToolCall } from './tool-call.ts';

export interface McpEndpointDeps extends McpDeps {
  identity: IdentityService;
  sessions: SessionService;
  database: Database;
  baseUrl: string;
  /** Requests per minute per identity. */
  ratePerMinute: number;
  redis: Redis | null;
  /**
   * Clients (clientInfo name and version; version * for any) whose GET /mcp gets 405: their
   * notifications ride in POST answers instead (SPEC Authentication 8).
   */
  noStreamClients: ReadonlyArray<{ name: string; version: string }>;
  /** Host names /mcp answers to besides the base URL's (CAIRN_ALLOWED_HOSTS). */
  allowedHosts: readonly string[];
  /** Browser origins /mcp answers besides the base URL's (CAIRN_ALLOWED_ORIGINS; `*` for any). */
  allowedOrigins: readonly string[];
  /**
   * Whether a single well-formed tools/call is answered by tool-call.ts rather than the SDK
   * (CAIRN_MCP_DIRECT_CALLS; an escape hatch, the answers are meant to be the same).
   */
  directCalls: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    mcpAuth?: Authenticated;
    /** Not authenticated because the database could not be reached: only the 503 answer follows. */
    mcpUnavailable?: boolean;
  }
}

const tags = ['mcp'];
const security = [{ bearer: [] }];

/**
 * `/mcp`: MCP Streamable HTTP. Authentication and sessions are ours (database-backed);
 * JSON-RPC framing, protocol negotiation and dispatch are the official SDK's.
 */
export async function mcpRoutes(app: FastifyInstance, deps: McpEndpointDeps): Promise<void> {
  // An API's security headers rather than a web page's, on every answer, refusals included.
  sendApiSecurityHeaders(app);
  // DNS-rebinding protection first: a foreign Host or Origin learns nothing, not even CORS.
  const policy = requestPolicy(deps.baseUrl, deps.allowedHosts, deps.allowedOrigins);
  guardHostAndOrigin(app, deps.baseUrl, policy);
  // CORS answers exactly the origins the guard lets through.
  allowOrigins(app, ['/mcp'], {
    origins: policy.anyOrigin ? 'any' : (origin) => policy.originAllowed(origin),
    methods: ['GET', 'POST', 'DELETE'],
    headers: [
      'authorization',
      'content-type',
      'accept',
      'mcp-session-id',
      'mcp-protocol-version',
      'mcp-method',
      'mcp-name',
      'last-event-id',
    ],
    expose: ['mcp-session-id', 'www-authenticate'],
  });
  // Authenticate before the body is read: an unauthenticated caller costs one lookup, not a parse.
  app.addHook('onRequest', async (req) => {
    // A CORS preflight carries no credential: the browser asks before it sends one.
    if (req.method === 'OPTIONS') return;
    // The 2026-07-28 revision has no sessions: a session id sent along is ignored.
    const modern = isModernHeader(req);
    const sessionId = modern ? null : (header(req, 'mcp-session-id') ?? null);
    try {
      req.mcpAuth = await authenticateRequest(req, deps.identity, sessionId);
    } catch (err) {
      // With the database away nobody can be authenticated. A tool call on an open session (or
      // of the stateless revision) is still answered as a tool error its client can read (issue
      // 14 item 2); the handler does nothing else for such a request. Everything else gets the
      // HTTP 503.
      if (!(isDatabaseUnavailable(err) && req.method === 'POST' && (sessionId || modern))) throw err;
      req.mcpUnavailable = true;
    }
  });
  // JSON-RPC 2.0 §5.1: a body that is not JSON is a parse error (-32700) with a null id, as the
  // MCP SDK's transport answers it; every other failure keeps Cairn's envelope.
  const envelope = envelopeErrorHandler(deps.baseUrl);
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || err.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') {
      return rpcError(
        reply,
        null,
        -32700,
        'Parse error: the body is not valid JSON. Send one JSON-RPC message.',
      );
    }
    // A prototype key: JSON-RPC's Invalid Request, naming the key, for the message's own id.
    if (err instanceof PrototypeKeyRefused) {
      return rpcError(reply, err.rpcId, -32600, `Invalid Request: ${err.message}`, { refused_key: err.key });
    }
    return envelope(err, req, reply);
  });
  // The 2026-07-28 listens compare the caller's tool list before and after each wake.
  const listens = new ListenHub(
    deps.identity,
    (caller) => JSON.stringify(mcpTools(deps, caller)),
    deps.feeds,
  );
  const hub = new NotificationHub(deps.database, deps.sessions, deps.identity, deps.feeds, (agentId) =>
    listens.wake(agentId),
  );
  await hub.start();
  listens.start();
  // Open streams would hold the server open; end them first.
  app.addHook('preClose', async () => {
    listens.stop();
    await hub.stop();
  });
  await registerRateLimit(app, {
    perMinute: deps.ratePerMinute,
    name: 'mcp',
    redis: deps.redis,
    hook: 'preHandler',
    keyGenerator: (req) => req.mcpAuth?.caller.agent.id ?? req.ip,
    who: 'for this identity',
  });

  app.post(
    '/mcp',
    { helmet: false, schema: { tags, security, summary: 'MCP JSON-RPC 2.0 (Streamable HTTP)' } },
    async (req, reply) => {
      const modern = isModernPost(req);
      if (req.mcpUnavailable) return answerUnavailable(req, reply, deps.baseUrl, modern);
      const auth = req.mcpAuth!;
      if (refuseOutOfScope(reply, req.body, auth.caller, deps.runner, deps.baseUrl)) return reply;
      if (modern) return serveModern(req, reply, auth, deps, listens);
      ignoreTaskMetadata(req.body);
      const init = isInitialize(req.body);
      const sessionId = header(req, 'mcp-session-id');
      // initialize starts a new session, so a stale id sent along with it does not matter.
      if (!init && sessionId && !auth.sessionOpen) throw sessionNotFound();
      const takeInbox = auth.ownerMessagesWaiting
        ? () => deps.identity.takeInbox(auth.caller.agent.id)
        : null;
      const gone = whenClientGone(req);
      let direct: string | null;
      let response: Response | null;
      try {
        direct =
          init || !deps.directCalls
            ? null
            : await directToolCall(req, auth.caller, deps, takeInbox, gone.signal);
        response = direct === null ? await dispatch(req, auth.caller, deps, takeInbox, gone.signal) : null;
      } finally {
        gone.release();
      }
      const text = direct ?? (response?.status === 202 ? '' : ((await response?.text()) ?? ''));
      const status = response?.status ?? 200;
      if (status >= 400) {
        const message = sdkErrorMessage(text);
        // JSON that is no JSON-RPC message: JSON-RPC's own Invalid Request (the SDK says -32700).
        if (/Invalid JSON-RPC message/i.test(message)) {
          return rpcError(
            reply,
            null,
            -32600,
            'Invalid Request: the body is JSON but not a JSON-RPC 2.0 message. Send {"jsonrpc": "2.0", "id", "method", "params"}.',
          );
        }
        // The SDK refused the HTTP request itself (media type, Accept): one envelope for all refusals.
        return sendError(reply, deps.baseUrl, codeForStatus(status), message);
      }
      if (init && status === 200) {
        const opened = await openSession(deps.sessions, auth.caller, req.body, text);
        if (opened) reply.header('mcp-session-id', opened);
      }
      // Queued notifications ride ahead of the answer as SSE events (SPEC Authentication 8).
      if (!init && sessionId && auth.notificationsWaiting && status === 200) {
        const pending = await deps.sessions.takeNotifications(sessionId);
        if (pending.length > 0) {
          const events = pending.map((n) => sseEvent(asJsonRpc(n))).join('');
          return reply
            .type('text/event-stream')
            .header('cache-control', 'no-cache')
            .send(`${events}event: message\ndata: ${text}\n\n`);
        }
      }
      reply.code(status);
      const type = response ? response.headers.get('content-type') : 'application/json';
      if (type) reply.type(type);
      return reply.send(text === '' ? undefined : text);
    },
  );

  // DELETE and GET name a session; without one there is nothing to end or to stream.
  const noSessionId = (reply: FastifyReply, message: string) =>
    sendError(reply, deps.baseUrl, 'BAD_REQUEST', message);

  app.delete(
    '/mcp',
    { helmet: false, schema: { tags, security, summary: 'End an MCP session' } },
    async (req, reply) => {
      const sessionId = header(req, 'mcp-session-id');
      if (!sessionId && isModernHeader(req)) return postOnly(reply, deps.baseUrl);
      if (!sessionId) return noSessionId(reply, 'Send the Mcp-Session-Id of the session to end.');
      await deps.sessions.end(sessionId, req.mcpAuth!.caller.agent.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/mcp',
    { helmet: false, schema: { tags, security, summary: 'Standalone notification stream (SSE)' } },
    async (req, reply) => {
      const auth = req.mcpAuth!;
      if (!header(req, 'mcp-session-id') && isModernHeader(req)) return postOnly(reply, deps.baseUrl);
      if (!(req.headers.accept ?? '').includes('text/event-stream')) {
        return sendError(
          reply,
          deps.baseUrl,
          'NOT_ACCEPTABLE',
          'The notification stream needs Accept: text/event-stream.',
        );
      }
      const sessionId = header(req, 'mcp-session-id');
      if (!sessionId) return noSessionId(reply, 'Send the Mcp-Session-Id of an initialized session.');
      if (!auth.sessionOpen) throw sessionNotFound();
      const client = await deps.sessions.clientOf(sessionId, auth.caller.agent.id);
      const declined = deps.noStreamClients.some(
        (c) => c.name === client?.name && (c.version === '*' || c.version === client?.version),
      );
      if (declined) {
        reply.header('allow', 'POST, DELETE');
        return sendError(
          reply,
          deps.baseUrl,
          'METHOD_NOT_ALLOWED',
          'This client does not get a standalone stream: its notifications arrive with the answers to its POST requests.',
          { next_step: 'Keep sending POST /mcp; queued notifications come ahead of the next answer.' },
        );
      }
      openEventStream(req, reply);
      hub.open(auth.caller, sessionId, reply, bearerToken(req));
    },
  );
}

function sessionNotFound(): DomainError {
  return new DomainError('SESSION_NOT_FOUND', 'This MCP session is unknown or has ended.', {
    next_step: 'Send initialize without Mcp-Session-Id to start a new session.',
  });
}
