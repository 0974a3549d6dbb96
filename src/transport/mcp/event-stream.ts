import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Takes the reply over as an event stream and sends its headers at once: a client waits for
 * them before it listens, and no event may come for long.
 */
export function openEventStream(req: FastifyRequest, reply: FastifyReply): void {
  reply.hijack();
  reply.raw.writeHead(200, {
    // Headers set by hooks so far (CORS among them): hijacking bypasses Fastify's own sending.
    ...(reply.getHeaders() as Record<string, string>),
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache, no-transform',
    'x-accel-buffering': 'no',
    'x-request-id': req.id,
    // A stream's connection is never reused: when it ends, the socket goes too.
    connection: 'close',
  });
  reply.raw.flushHeaders();
}
