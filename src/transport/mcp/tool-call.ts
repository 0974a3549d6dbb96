import {
  CallToolRequestSchema,
  JSONRPCRequestSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyRequest } from 'fastify';
import type { Caller, InboxMessage } from '../../domains/identity/index.ts';
import { answerToolCall, type McpDeps } from './server.ts';

/**
 * The direct path for the one request agents send most: a single, well-formed `tools/call` with
 * acceptable headers. The SDK's per-request server and web-standard transport cost about a
 * fifth of a millisecond per answer on top of the tool (Request and Response objects, streams,
 * result validation, closing), which is what a wake-up of hundreds of events_watch calls queues
 * on (measured: docs/decisions.md). A tools/call whose params do not fit is answered here too,
 * with JSON-RPC's -32602. Anything else (initialize, lists, notifications, batches, a request
 * the SDK would refuse at the HTTP level) still goes through the SDK, so those refusals are the
 * SDK's own. The answer itself is answerToolCall's, as on the SDK path.
 */
export async function directToolCall(
  req: FastifyRequest,
  caller: Caller,
  deps: McpDeps,
  takeInbox: (() => Promise<InboxMessage[]>) | null,
): Promise<string | null> {
  if (!acceptable(req)) return null;
  // The SDK's own checks, strictest first: a JSON-RPC request (its id rules, no stray keys), then
  // a tools/call. A task-augmented call is the SDK's to refuse (this server runs no tasks).
  const envelope = JSONRPCRequestSchema.safeParse(req.body);
  if (!envelope.success || envelope.data.method !== 'tools/call') return null;
  const id = envelope.data.id;
  const parsed = CallToolRequestSchema.safeParse(req.body);
  if (!parsed.success) {
    // JSON-RPC 2.0 §5.1: params that do not fit the method are -32602, said readably (the SDK
    // answers -32603 Internal error with the validator's dump).
    const problems = parsed.error.issues.map((i) => `${['params', ...i.path].join('.')}: ${i.message}`);
    return JSON.stringify({
      jsonrpc: '2.0',
      id,
      error: {
        code: -32602,
        message: `Invalid params for tools/call: ${problems.join('; ').slice(0, 500)}. Send {name, arguments} with arguments an object.`,
      },
    });
  }
  if (parsed.data.params.task !== undefined) return null;
  try {
    const result = await answerToolCall(caller, deps, req.id, takeInbox, parsed.data.params);
    return JSON.stringify({ jsonrpc: '2.0', id, result });
  } catch (err) {
    // As the SDK answers a handler that throws: a JSON-RPC error for this id. Only the error's
    // kind is logged: a failed query's message repeats its parameters (message texts among them).
    req.log.error(
      { error: err instanceof Error ? err.name : typeof err },
      'tools/call failed outside the operation',
    );
    return JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'Internal error' } });
  }
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
