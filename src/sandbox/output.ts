/**
 * stdout and stderr of one run, written by the worker straight into shared memory. A worker
 * stopped from outside (the time limit) cannot send anything back, but what the program printed
 * before the deadline is already here for the pool to read.
 */

const HEADER_BYTES = 16;
const STDOUT_TRUNCATED = 1;
const STDERR_TRUNCATED = 2;

export type Stream = 'stdout' | 'stderr';

export interface CapturedOutput {
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
}

/** Shared memory for both streams of one run, each holding at most `capBytes` of UTF-8. */
export function allocateOutput(capBytes: number): SharedArrayBuffer {
  return new SharedArrayBuffer(HEADER_BYTES + 2 * capBytes);
}

/** Appends text to the streams of a run; usable from either thread. */
export class OutputWriter {
  private readonly header: Int32Array;
  private readonly capBytes: number;
  private readonly encoder = new TextEncoder();

  constructor(private readonly buffer: SharedArrayBuffer) {
    this.header = new Int32Array(buffer, 0, 4);
    this.capBytes = (buffer.byteLength - HEADER_BYTES) / 2;
  }

  /**
   * Appends what fits (whole characters only) and returns false when some of the text did not:
   * the stream is then marked truncated.
   */
  write(stream: Stream, text: string): boolean {
    const index = stream === 'stdout' ? 0 : 1;
    const used = Atomics.load(this.header, index);
    const start = HEADER_BYTES + index * this.capBytes + used;
    const room = new Uint8Array(this.buffer, start, this.capBytes - used);
    const { read, written } = this.encoder.encodeInto(text, room);
    Atomics.store(this.header, index, used + written);
    if (read === text.length) return true;
    Atomics.or(this.header, 2, stream === 'stdout' ? STDOUT_TRUNCATED : STDERR_TRUNCATED);
    return false;
  }
}

/** Reads both streams back (the pool, once the run is over). */
export function readOutput(buffer: SharedArrayBuffer): CapturedOutput {
  const header = new Int32Array(buffer, 0, 4);
  const capBytes = (buffer.byteLength - HEADER_BYTES) / 2;
  const decoder = new TextDecoder();
  // TextDecoder refuses views on shared memory, so each stream is copied out first.
  const text = (index: number): string =>
    decoder.decode(
      new Uint8Array(buffer, HEADER_BYTES + index * capBytes, Atomics.load(header, index)).slice(),
    );
  const flags = Atomics.load(header, 2);
  return {
    stdout: text(0),
    stderr: text(1),
    stdoutTruncated: (flags & STDOUT_TRUNCATED) !== 0,
    stderrTruncated: (flags & STDERR_TRUNCATED) !== 0,
  };
}
