import type { Socket } from 'node:net';
import { errorEnvelope } from '../../kernel/errors.ts';

/**
 * Errors Node finds before a request reaches Fastify (a request that did not arrive in time,
 * headers too large, bytes that are not HTTP), answered in the envelope every other refusal uses
 * and then the connection is closed: nothing more can be read from it safely.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  // A reset connection, or one already gone, has no one left to answer.
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, reason, body] =
    err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [
          408,
          'Request Timeout',
          errorEnvelope(
            'REQUEST_TIMEOUT',
            'The request did not arrive in time (CAIRN_REQUEST_TIMEOUT_SECONDS); the connection is closed.',
          ),
        ]
      : err.code === 'HPE_HEADER_OVERFLOW'
        ? [
            431,
            'Request Header Fields Too Large',
            errorEnvelope('BAD_REQUEST', 'The request headers are too large.'),
          ]
        : [400, 'Bad Request', errorEnvelope('BAD_REQUEST', 'The request is not valid HTTP.')];
  const text = JSON.stringify(body);
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy();
}
