import { errorEnvelope } from '../../kernel/errors.ts';
import { error, type ModernAnswer, type ModernContext, result } from './modern-answer.ts';
import { MODERN_VERSIONS, type ModernRequest, RPC, type RpcId } from './modern-request.ts';
import { answerToolCall } from './server.ts';
import { answerSkillMethod, readSkillFile, type SkillsAnswer, skillsCapability } from './skills-extension.ts';
import { feedTemplates, INSTRUCTIONS, listedResource, mcpResources, mcpTools } from './surface.ts';

/**
 * The methods of MCP 2026-07-28, answered statelessly: each request carries its version and
 * capabilities, nothing is remembered between requests, and every result says what it is
 * (`resultType`) and who answered (`_meta` serverInfo). The tools and resources are the same
 * definitions the 2025-era sessions list (surface.ts); a tools/call runs the same
 * answerToolCall. subscriptions/listen is a stream, held by listen-hub.ts.
 */

/**
 * What discover advertises, exactly what the handlers below do. No `logging`: this revision
 * sends log messages only on a request's own stream, when it asks for a level, and Cairn has no
 * per-request log to send (owner messages ride in tool results). No prompts or completions.
 * `resources.subscribe`: a listen's `resourceSubscriptions` are honoured for the areas' feeds.
 */
export const MODERN_CAPABILITIES = { tools: { listChanged: true }, resources: { subscribe: true } } as const;

/** The capabilities with the extensions this deployment serves (the Skills extension, where skills are on). */
function capabilitiesOf(ctx: ModernContext) {
  const extensions = skillsCapability(ctx.deps.skills);
  return Object.keys(extensions).length > 0 ? { ...MODERN_CAPABILITIES, extensions } : MODERN_CAPABILITIES;
}

/**
 * Caching hints (`ttlMs`, `cacheScope`, SEP-2549). The server's description and its two
 * resources are the same for everyone and change only with a new deployment. The tool list
 * depends on the caller's mode and grants: private, and short, since a mode can change at any
 * time (a listen stream with toolsListChanged hears of it at once).
 */
const CACHE = {
  discover: { ttlMs: 600_000, cacheScope: 'public' },
  tools: { ttlMs: 60_000, cacheScope: 'private' },
  resources: { ttlMs: 600_000, cacheScope: 'public' },
} as const;

export async function answerModern(request: ModernRequest, ctx: ModernContext): Promise<ModernAnswer> {
  const { id, params } = request;
  switch (request.method) {
    case 'server/discover':
      return result(id, {
        supportedVersions: [...MODERN_VERSIONS],
        capabilities: capabilitiesOf(ctx),
        instructions: INSTRUCTIONS,
        ...CACHE.discover,
      });
    case 'tools/list':
      if (params.cursor !== undefined) return notPaginated(id);
      return result(id, { tools: mcpTools(ctx.deps, ctx.caller), ...CACHE.tools });
    case 'tools/call':
      return callTool(request, ctx);
    case 'resources/list':
      if (params.cursor !== undefined) return notPaginated(id);
      return result(id, { resources: mcpResources(ctx.deps).map(listedResource), ...CACHE.resources });
    case 'resources/templates/list':
      if (params.cursor !== undefined) return notPaginated(id);
      return result(id, { resourceTemplates: feedTemplates(ctx.deps), ...CACHE.resources });
    case 'resources/read':
      return readResource(id, params.uri, ctx);
    case 'skills/list':
    case 'skills/get':
      if (ctx.deps.skills)
        return modernOf(id, await answerSkillMethod(request.method, params, ctx.deps.skills, ctx.caller));
      return methodNotFound(request);
    default:
      return methodNotFound(request);
  }
}

/**
 * Removed methods (initialize, ping, logging/setLevel, resources/subscribe) and ones for
 * capabilities or extensions this server does not declare (prompts, completions) alike: 404 + -32601.
 */
function methodNotFound(request: ModernRequest): ModernAnswer {
  return error(
    404,
    request.id,
    RPC.methodNotFound,
    `Method not found: ${request.method.slice(0, 100)}. server/discover lists what this server serves.`,
  );
}

async function callTool(request: ModernRequest, ctx: ModernContext): Promise<ModernAnswer> {
  const answer = await answerToolCall(
    ctx.caller,
    ctx.deps,
    ctx.requestId,
    ctx.takeInbox,
    ctx.log,
    { method: 'tools/call', params: withoutRetryFields(request.params) },
    ctx.gone,
  );
  if ('error' in answer) return error(200, request.id, answer.error.code, answer.error.message);
  const envelope = answer.result.structuredContent as { error?: { code?: string } } | undefined;
  // This revision names an unknown tool a protocol error (-32602); the envelope, with the
  // tools the caller may call instead, rides in data.
  if (answer.result.isError && envelope?.error?.code === 'UNKNOWN_TOOL') {
    const name = String(request.params.name).slice(0, 100);
    return error(200, request.id, RPC.invalidParams, `Unknown tool: ${name}`, envelope);
  }
  return result(request.id, answer.result);
}

/**
 * Cairn asks no questions back (it never answers input_required), so a retry's
 * `inputResponses`/`requestState` have nothing to resume: the call runs as a first call.
 */
function withoutRetryFields(params: Record<string, unknown>): Record<string, unknown> {
  const { inputResponses: _responses, requestState: _state, ...rest } = params;
  return rest;
}

async function readResource(id: RpcId, uri: unknown, ctx: ModernContext): Promise<ModernAnswer> {
  const { deps } = ctx;
  if (typeof uri !== 'string') {
    return error(200, id, RPC.invalidParams, 'Invalid params: resources/read needs params.uri, a string.');
  }
  const skillFile = await readSkillFile(uri, deps.skills, ctx.caller);
  if (skillFile) return modernOf(id, skillFile);
  const found = mcpResources(deps).find((r) => r.uri === uri);
  if (!found) {
    // A feed's content is the caller's own: never cached by anyone else, and stale at once.
    for (const feed of deps.feeds) {
      const text = await feed.read(uri, ctx.caller);
      if (text !== null) {
        return result(id, {
          contents: [{ uri, mimeType: feed.mimeType, text }],
          ttlMs: 0,
          cacheScope: 'private',
        });
      }
    }
    // 2026-07-28 (SEP-2164): an unknown resource is -32602 with the URI in data, never empty contents.
    const names = mcpResources(deps).map((r) => r.uri);
    const templates = deps.feeds.map((f) => f.uriTemplate);
    return error(
      200,
      id,
      RPC.invalidParams,
      `Resource not found: ${uri.slice(0, 200)}. resources/list names ${names.join(' and ')}; resources/templates/list names ${templates.join(', ') || 'none'}.`,
      {
        uri,
        ...errorEnvelope('NOT_FOUND', `No resource ${uri.slice(0, 200)}.`, { uri }),
      },
    );
  }
  return result(id, {
    contents: [{ uri: found.uri, mimeType: found.mimeType, text: found.text() }],
    ...CACHE.resources,
  });
}

function modernOf(id: RpcId, answer: SkillsAnswer): ModernAnswer {
  if ('result' in answer) return result(id, answer.result);
  return error(200, id, answer.error.code, answer.error.message, answer.error.data);
}

function notPaginated(id: RpcId): ModernAnswer {
  return error(
    200,
    id,
    RPC.invalidParams,
    'Invalid params: this list comes whole, on one page; send no cursor.',
  );
}
