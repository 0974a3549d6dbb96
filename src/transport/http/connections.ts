import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * The HTTP server's connections, for two things Node's server does not do by itself (issue 38).
 *
 * Closing: `server.close()` ends only connections it counts as idle. One that has sent nothing yet,
 * or part of a request, or a client that called close() but left its socket open, held a stopping
 * replica until the 5-second force timer. Here every connection with no request in flight is ended
 * at once, and one with a request in flight as soon as its answer is written.
 *
 * The write deadline: a client that stops reading (pipelined answers never read, a stream never
 * read) leaves its answers in this process's buffers once the operating system's socket buffers
 * are full, and would hold them and its socket forever. A connection whose pending answer has not
 * moved for `writeTimeoutMs` is destroyed. What still fits in the operating system's buffers is not
 * seen here (a few small writes to a client that never reads); idle keep-alive connections are
 * ended by the server's keep-alive timeout.
 */
export class Connections {
  private readonly open = new Map<Socket, ConnectionState>();
  private closing = false;
  private readonly checker: NodeJS.Timeout;

  constructor(
    server: Server,
    private readonly writeTimeoutMs: number,
    checkEveryMs = 1_000,
  ) {
    server.on('connection', (socket: Socket) => {
      // Accepted in the moment before the listening socket closed: the client goes elsewhere.
      if (this.closing) {
        socket.destroy();
        return;
      }
      this.open.set(socket, { inFlight: 0, pending: '', stalledSince: 0 });
      socket.once('close', () => this.open.delete(socket));
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.started(req.socket, res));
    this.checker = setInterval(() => this.check(Date.now()), checkEveryMs);
    this.checker.unref();
  }

  /** The server is closing: ends every connection with no request in flight now, the rest after their answer. */
  closeIdle(): void {
    this.closing = true;
    for (const [socket, state] of this.open) if (state.inFlight === 0) socket.destroy();
  }

  stop(): void {
    clearInterval(this.checker);
  }

  private started(socket: Socket, res: ServerResponse): void {
    const state = this.open.get(socket);
    if (!state) return;
    state.inFlight++;
    res.once('close', () => {
      state.inFlight--;
      // Ended after its answer is flushed (end, not destroy, so the last bytes are not cut).
      if (this.closing && state.inFlight === 0) socket.end();
    });
  }

  private check(now: number): void {
    for (const [socket, state] of this.open) {
      const pending = pendingWrites(socket);
      if (pending === '') {
        state.pending = '';
        continue;
      }
      if (pending !== state.pending) {
        state.pending = pending;
        state.stalledSince = now;
      } else if (now - state.stalledSince >= this.writeTimeoutMs) {
        this.open.delete(socket);
        socket.destroy();
      }
    }
  }
}

interface ConnectionState {
  /** Requests whose answer is not finished (pipelined ones count each). */
  inFlight: number;
  /** What was waiting to be written at the last check; '' when nothing was. */
  pending: string;
  stalledSince: number;
}

/**
 * What waits to be written on a socket: bytes queued in the stream and bytes handed to libuv but not
 * yet taken by the kernel (the handle's write queue, which shrinks as a slow client reads). Any change
 * between two checks is progress; '' when nothing waits.
 */
function pendingWrites(socket: Socket): string {
  const queued =
    (socket as unknown as { _handle?: { writeQueueSize?: number } | null })._handle?.writeQueueSize ?? 0;
  const buffered = socket.writableLength;
  return queued === 0 && buffered === 0 ? '' : `${buffered}:${queued}`;
}
