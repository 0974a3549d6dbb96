import { JSONRPCRequestSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import type { Caller, InboxMessage } from '../../domains/identity/index.ts';
import { answerToolCall, type McpDeps } from './server.ts';

/**
 * The direct path for the one request agents send most: a single tools/call with acceptable
 * headers. The SDK's per-request server and web-standard transport cost about a fifth of a
 * millisecond per answer on top of the tool (Request and Response objects, streams, closing),
 * which is what a wake-up of hundreds of events_watch calls queues on (measured:
 * docs/decisions.md). Anything else (initialize, lists, notifications, batches, a request the
 * SDK would refuse at the HTTP level or as JSON-RPC) still goes through the SDK, so those
 * refusals are the SDK's own. The answer itself, params errors included, is answerToolCall's,
 * as on the SDK path; test/e2e/mcp-direct-vs-sdk.test.ts holds the two paths to the same
 * answers (CAIRN_MCP_DIRECT_CALLS=false turns this path off).
 */
export async function directToolCall(
  req: FastifyRequest,
  caller: Caller,
  deps: McpDeps,
  takeInbox: (() => Promise<InboxMessage[]>) | null,
  gone?: AbortSignal,
): Promise<string | null> {
  if (!acceptable(req)) return null;
  // The SDK's own check: a JSON-RPC request (its id rules, no stray keys) for tools/call.
  const envelope = JSONRPCRequestSchema.safeParse(req.body);
  if (!envelope.success || envelope.data.method !== 'tools/call') return null;
  const answer = await answerToolCall(caller, deps, req.id, takeInbox, req.log, req.body, gone);
  return JSON.stringify({ jsonrpc: '2.0', id: envelope.data.id, ...answer });
}

/** The header checks the SDK transport makes before it dispatches; any doubt leaves it to the SDK. */
function acceptable(req: FastifyRequest): boolean {
  const accept = req.headers.accept ?? '';
  if (!accept.includes('application/json') || !accept.includes('text/event-stream')) return false;
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/json') return false;
  const version = req.headers['mcp-protocol-version'];
  return (
    version === undefined || (typeof version === 'string' && SUPPORTED_PROTOCOL_VERSIONS.includes(version))
  );
}
