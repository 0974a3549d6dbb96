import type { FastifyRequest } from 'fastify';

/**
 * A signal aborted when the client's connection closes before its answer is written (issue 38):
 * a call that waits (events_watch, the other long polls) stops waiting, since nobody would read
 * its answer, instead of holding its re-checks for up to a minute. `release()` stops watching the
 * connection; always call it, since a keep-alive connection carries many requests.
 */
export function whenClientGone(req: FastifyRequest): { signal: AbortSignal; release(): void } {
  const controller = new AbortController();
  const socket = req.raw.socket;
  const onClose = () => controller.abort();
  if (socket.destroyed) controller.abort();
  else socket.once('close', onClose);
  return { signal: controller.signal, release: () => socket.off('close', onClose) };
}
