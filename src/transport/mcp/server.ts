import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type { FastifyBaseLogger } from 'fastify';
import { SERVER_NAME, SERVER_VERSION } from '../../domains/discovery/index.ts';
import type { Caller, InboxMessage, SessionService } from '../../domains/identity/index.ts';
import { FEED_LIMITS } from '../../framework/index.ts';
import { errorEnvelope } from '../../kernel/errors.ts';
import { followUri } from './feed-watch.ts';
import {
  answerSkillMethod,
  readSkillFile,
  SKILL_METHODS,
  type SkillsAnswer,
  skillsCapability,
} from './skills-extension.ts';
import {
  feedTemplates,
  INSTRUCTIONS,
  listedResource,
  type McpDeps,
  mcpResources,
  mcpTools,
} from './surface.ts';

export type { McpDeps } from './surface.ts';

/**
 * The SDK builds a new Ajv validator per Server unless given one; the server is built per
 * request, so share one (it caches compiled schemas) instead of paying for it every call.
 */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

/** A tools/call request's JSON-RPC outcome: a result, or an error for its id. */
export type ToolCallAnswer = { result: CallToolResult } | { error: { code: number; message: string } };

/**
 * The answer to a tools/call request, defined once: the SDK server (as its fallback handler) and
 * the direct path of tool-call.ts both return it, so the two paths cannot drift apart.
 * `request` is the JSON-RPC request as sent; its envelope (jsonrpc, id) is the caller's to check.
 */
export async function answerToolCall(
  caller: Caller,
  deps: McpDeps,
  requestId: string,
  takeInbox: (() => Promise<InboxMessage[]>) | null,
  log: FastifyBaseLogger,
  request: unknown,
  signal?: AbortSignal,
): Promise<ToolCallAnswer> {
  const parsed = CallToolRequestSchema.safeParse(request);
  if (!parsed.success) {
    // JSON-RPC 2.0 §5.1: params that do not fit the method are -32602, said readably. (The SDK's
    // own tools/call handler answers -32603 Internal error with the validator's dump.)
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || 'request'}: ${i.message}`);
    return {
      error: {
        code: ErrorCode.InvalidParams,
        message: `Invalid params for tools/call: ${problems.join('; ').slice(0, 500)}. Send {name, arguments} with arguments an object.`,
      },
    };
  }
  try {
    return { result: await toolResult(caller, deps, requestId, takeInbox, parsed.data.params, signal) };
  } catch (err) {
    // As JSON-RPC answers a method that failed: an error for this id, saying no more than that.
    // Only the error's kind is logged: a failed query's message repeats its parameters (message
    // texts among them), so it is neither logged nor sent.
    log.error(
      { error: err instanceof Error ? err.name : typeof err },
      'tools/call failed outside the operation',
    );
    return { error: { code: ErrorCode.InternalError, message: 'Internal error' } };
  }
}

async function toolResult(
  caller: Caller,
  deps: McpDeps,
  requestId: string,
  takeInbox: (() => Promise<InboxMessage[]>) | null,
  params: { name: string; arguments?: Record<string, unknown> | undefined },
  signal?: AbortSignal,
): Promise<CallToolResult> {
  const outcome = await deps.runner.run(params.name, params.arguments, caller, requestId, signal);
  const body = (outcome.ok ? outcome.result : outcome.error) as Record<string, unknown>;
  // The agent inbox: owner messages ride with the next tool result, once, beside (never inside) it.
  const inbox = takeInbox ? await takeInbox() : [];
  return {
    content: [
      { type: 'text', text: JSON.stringify(body) },
      ...inbox.map((m) => ({
        type: 'text' as const,
        text: `Message from your owner (${m.label}, ${m.sent_at}): ${m.text}`,
      })),
    ],
    structuredContent: body,
    ...(inbox.length > 0 ? { _meta: { 'cairn/owner_messages': inbox } } : {}),
    ...(outcome.ok ? {} : { isError: true }),
  };
}

/**
 * An error the SDK sends as it is: {code, message}. (McpError would prefix the message with
 * "MCP error <code>: ".)
 */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/**
 * A resource that is neither one of the fixed two nor a feed URI the caller may read (the same
 * answer for all of these). Resource reads have no isError result form: a JSON-RPC error
 * carries the envelope in data.
 */
function resourceNotFound(uri: string): McpError {
  const e = errorEnvelope('NOT_FOUND', `No resource ${uri.slice(0, 200)}.`, { uri });
  return new McpError(-32002, e.error.message, e);
}

function extensionsOf(deps: McpDeps): { extensions?: Record<string, object> } {
  const extensions = skillsCapability(deps.skills);
  return Object.keys(extensions).length > 0 ? { extensions } : {};
}

/** A Skills extension answer as the SDK sends it: the result, or a JSON-RPC error with its data. */
function sdkOf(answer: SkillsAnswer) {
  if ('result' in answer) return answer.result;
  throw Object.assign(rpcError(answer.error.code, answer.error.message), { data: answer.error.data });
}

/**
 * An SDK server for one request of one caller. It holds no state of its own: sessions live in
 * the database, so building it per request is what lets any replica serve any request.
 */
export function createMcpServer(
  caller: Caller,
  deps: McpDeps,
  requestId: string,
  /** Takes the agent's waiting owner messages; null when none wait (known from authentication). */
  takeInbox: (() => Promise<InboxMessage[]>) | null,
  log: FastifyBaseLogger,
  /** Aborted when the HTTP client has gone. */
  gone?: AbortSignal,
  /** The request's open session, which resources/subscribe records in; null without one. */
  session: { id: string; service: SessionService } | null = null,
): Server {
  const server = new Server(
    { name: SERVER_NAME, version: SERVER_VERSION },
    {
      // Mode changes queue notifications/tools/list_changed for every open session of the identity.
      // logging: owner messages are announced as notifications/message (SPEC Events 2).
      // resources.subscribe: a session follows the areas' feeds; news comes on its GET stream.
      // extensions: the Skills extension, where an area serves skills (skills-extension.ts).
      capabilities: {
        tools: { listChanged: true },
        resources: { subscribe: true },
        logging: {},
        ...extensionsOf(deps),
      },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator,
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: mcpTools(deps, caller) }));

  // tools/call is answered by the fallback handler rather than setRequestHandler: the SDK checks
  // a registered handler's params itself first and answers a misfit -32603 Internal error with
  // zod's dump. Here it gets the same readable -32602 as on the direct path, batches included.
  server.fallbackRequestHandler = async (request) => {
    if (deps.skills && SKILL_METHODS.has(request.method)) {
      return sdkOf(await answerSkillMethod(request.method, request.params ?? {}, deps.skills, caller));
    }
    if (request.method !== 'tools/call') throw rpcError(ErrorCode.MethodNotFound, 'Method not found');
    const answer = await answerToolCall(caller, deps, requestId, takeInbox, log, request, gone);
    if ('error' in answer) throw rpcError(answer.error.code, answer.error.message);
    return answer.result;
  };

  const list = mcpResources(deps);
  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: list.map(listedResource),
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: feedTemplates(deps),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const skillFile = await readSkillFile(uri, deps.skills, caller);
    if (skillFile) return sdkOf(skillFile);
    const found = list.find((r) => r.uri === uri);
    if (found) return { contents: [{ uri, mimeType: found.mimeType, text: found.text() }] };
    for (const feed of deps.feeds) {
      const text = await feed.read(uri, caller);
      if (text !== null) return { contents: [{ uri, mimeType: feed.mimeType, text }] };
    }
    throw resourceNotFound(uri);
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    if (!session) {
      throw rpcError(
        ErrorCode.InvalidParams,
        'resources/subscribe needs a session: send initialize, then subscribe with its Mcp-Session-Id.',
      );
    }
    if (!(await followUri(deps.feeds, uri, caller))) throw resourceNotFound(uri);
    const max = FEED_LIMITS.subscriptionsPerSession;
    const outcome = await session.service.subscribe(session.id, caller.agent.id, uri, max);
    if (outcome === 'full') {
      throw rpcError(
        ErrorCode.InvalidParams,
        `A session follows at most ${max} resources; unsubscribe from one first.`,
      );
    }
    if (outcome === 'no-session')
      throw rpcError(ErrorCode.InvalidParams, 'This session has ended; initialize again.');
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    if (session) await session.service.unsubscribe(session.id, caller.agent.id, request.params.uri);
    return {};
  });

  return server;
}
