/**
 * The sandbox contract: what a caller hands in (a file tree and the program to run) and what it
 * gets back. Plain data only, so it crosses the worker boundary as it is.
 */

/** One text file of the run's workspace; `path` is relative and '/'-separated. */
export interface SandboxFile {
  path: string;
  content: string;
}

export interface ExecRequest {
  /** The whole workspace tree the program sees (UTF-8 text files). */
  files: SandboxFile[];
  /** Workspace path of the JavaScript program to run. */
  entry: string;
  args?: string[];
  stdin?: string;
  /** Wall-clock limit; defaults to the pool's `defaultTimeoutMs`, clamped to its `maxTimeoutMs`. */
  timeoutMs?: number;
}

/** Which limit ended a run. */
export type SandboxLimit = 'TIME' | 'MEMORY' | 'STACK' | 'OUTPUT' | 'FILES';

export interface ExecResult {
  /** 0 ok (or the program's own sandbox.exit code), 1 uncaught error, 124 timeout, 137 memory limit, 125 refused. */
  exitCode: number;
  stdout: string;
  stderr: string;
  stdoutTruncated: boolean;
  stderrTruncated: boolean;
  /** Wall time from dispatch to the answer (not the time spent waiting for a thread). */
  timeMs: number;
  /** QuickJS's own count of the memory it held at the end (or when it hit the cap); 0 after a time-out. */
  memoryBytes: number;
  /** Files the program created or changed, with their new content. Empty after a time-out. */
  changed: SandboxFile[];
  /** Files of the input tree the program deleted. Empty after a time-out. */
  deleted: string[];
  limit?: SandboxLimit;
}

/** Exit codes with a meaning of their own (shell conventions). */
export const EXIT = { OK: 0, ERROR: 1, TIMEOUT: 124, REFUSED: 125, MEMORY: 137 } as const;

/**
 * The sandbox's numbers, in one place (to be published with Cairn's limits). The memory cap is
 * enforced twice: QuickJS's own allocator limit, which undercounts many small objects, and a
 * WebAssembly memory that cannot grow past `wasmBaseBytes + memoryBytes`, which is exact.
 */
export const SANDBOX_LIMITS = {
  memoryBytes: 64 * 1024 * 1024,
  /** QuickJS's stack limit; the worker thread's native stack (`workerStackMb`) is sized well above it. */
  stackBytes: 512 * 1024,
  workerStackMb: 8,
  /** The WebAssembly module's own start-up memory (static data, C stack), beneath the program's cap. */
  wasmBaseBytes: 16 * 1024 * 1024,
  defaultTimeoutMs: 5_000,
  maxTimeoutMs: 30_000,
  /** The worker is terminated this long after the deadline, if the interrupt handler has not stopped the program by then. */
  killGraceMs: 100,
  /** Per stream (stdout, stderr), in UTF-8 bytes; writing past it ends the run with OUTPUT. */
  outputBytes: 64 * 1024,
  /** Per file, in UTF-8 bytes, for the input tree and for writes. */
  fileBytes: 1024 * 1024,
  files: 1_000,
  totalBytes: 8 * 1024 * 1024,
  pathChars: 512,
  pathDepth: 32,
  args: 64,
  argBytes: 4 * 1024,
  stdinBytes: 1024 * 1024,
} as const;

/** The limits one run is held to, sent with each job. */
export interface RunLimits {
  memoryBytes: number;
  stackBytes: number;
  outputBytes: number;
  fileBytes: number;
  files: number;
  totalBytes: number;
}

/** A validated request as the worker receives it. */
export interface RunJob {
  files: SandboxFile[];
  entry: string;
  args: string[];
  stdin: string;
  /** Epoch milliseconds after which the interrupt handler stops the program. */
  deadline: number;
  limits: RunLimits;
}

/** What the worker answers; output travels separately, in shared memory (see output.ts). */
export interface RunOutcome {
  exitCode: number;
  memoryBytes: number;
  changed: SandboxFile[];
  deleted: string[];
  limit?: SandboxLimit;
  /** The engine trapped (a native stack overflow, say): the worker must build a fresh module. */
  engineBroken: boolean;
}
