import { CallToolRequestSchema, SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import type { Caller, InboxMessage } from '../../domains/identity/index.ts';
import { answerToolCall, type McpDeps } from './server.ts';

/**
 * The direct path for the one request agents send most: a single, well-formed `tools/call` with
 * acceptable headers. The SDK's per-request server and web-standard transport cost about a
 * fifth of a millisecond per answer on top of the tool (Request and Response objects, streams,
 * result validation, closing), which is what a wake-up of hundreds of events_watch calls queues
 * on (measured: docs/decisions.md). Anything else (initialize, lists, notifications, batches, a
 * request the SDK would refuse or answer with a protocol error) still goes through the SDK, so
 * every refusal and error is the SDK's own. The answer itself is answerToolCall's, as on the
 * SDK path.
 */
export async function directToolCall(
  req: FastifyRequest,
  caller: Caller,
  deps: McpDeps,
  takeInbox: (() => Promise<InboxMessage[]>) | null,
): Promise<string | null> {
  if (!acceptable(req)) return null;
  const parsed = CallToolRequestSchema.safeParse(req.body);
  const body = req.body as { jsonrpc?: unknown; id?: unknown };
  const id = body?.id;
  if (!parsed.success || body.jsonrpc !== '2.0' || (typeof id !== 'string' && typeof id !== 'number'))
    return null;
  const result = await answerToolCall(caller, deps, req.id, takeInbox, parsed.data.params);
  return JSON.stringify({ jsonrpc: '2.0', id, result });
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
