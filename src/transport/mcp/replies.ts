import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorEnvelope } from '../../kernel/errors.ts';
import { RETRY_AFTER_SECONDS } from '../../storage/unavailable.ts';
import { sendError } from '../../web/http/error-handler.ts';

/** Answers /mcp gives itself, outside the SDK: JSON-RPC's own errors, and the database away. */

/**
 * The database is away: a tools/call is answered with a tool error (SERVICE_UNAVAILABLE, retry
 * hint in details), which MCP clients show to the agent as they show any failed call; any other
 * message gets the HTTP 503 with Retry-After.
 */
export function answerUnavailable(req: FastifyRequest, reply: FastifyReply, baseUrl: string, modern = false) {
  const message = 'The database cannot be reached right now; nothing was changed.';
  const details = { retry_after_seconds: RETRY_AFTER_SECONDS };
  const body = req.body as { method?: unknown; id?: unknown } | null;
  const id = body?.id;
  if (body?.method === 'tools/call' && (typeof id === 'string' || typeof id === 'number')) {
    const envelope = errorEnvelope('SERVICE_UNAVAILABLE', message, details);
    reply.header('retry-after', String(RETRY_AFTER_SECONDS));
    return reply.type('application/json').send({
      jsonrpc: '2.0',
      id,
      result: {
        // The 2026-07-28 revision names every result's kind.
        ...(modern ? { resultType: 'complete' } : {}),
        content: [{ type: 'text', text: JSON.stringify(envelope) }],
        structuredContent: envelope,
        isError: true,
      },
    });
  }
  return sendError(reply, baseUrl, 'SERVICE_UNAVAILABLE', message, details);
}

/** A JSON-RPC error where JSON-RPC itself defines the answer (400, as the SDK's transport sends them). */
export function rpcError(
  reply: FastifyReply,
  id: string | number | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
) {
  return reply
    .code(400)
    .type('application/json')
    .send({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });
}

export function sdkErrorMessage(text: string): string {
  try {
    return String(JSON.parse(text)?.error?.message ?? 'The MCP request was refused.');
  } catch {
    return 'The MCP request was refused.';
  }
}
