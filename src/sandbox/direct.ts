/**
 * One run in the calling thread, with no pool around it: for benchmarks that compare the pool's
 * cost with the engine's own, and for tools that already run in a thread of their own. Nothing
 * here can stop a program blocked inside one builtin (only the pool's thread termination can),
 * so it must never run untrusted programs on the main thread of a server.
 */
import { newQuickJSWASMModule, type QuickJSWASMModule, RELEASE_SYNC } from 'quickjs-emscripten';
import { runProgram } from './engine.ts';
import { allocateOutput, OutputWriter, readOutput } from './output.ts';
import { checkRequest, RequestRefused, refusedResult, runLimits } from './request.ts';
import { type ExecRequest, type ExecResult, SANDBOX_LIMITS } from './types.ts';

/** A QuickJS module for execDirect (the same build the pool's threads use). */
export function loadEngine(): Promise<QuickJSWASMModule> {
  return newQuickJSWASMModule(RELEASE_SYNC);
}

/** Runs `request` synchronously in `engine`, with the pool's limits except the outside kill. */
export function execDirect(engine: QuickJSWASMModule, request: ExecRequest): ExecResult {
  let checked: ReturnType<typeof checkRequest>;
  try {
    checked = checkRequest(request, SANDBOX_LIMITS);
  } catch (error) {
    if (error instanceof RequestRefused) return refusedResult(error.message);
    throw error;
  }
  const timeoutMs = Math.min(
    request.timeoutMs ?? SANDBOX_LIMITS.defaultTimeoutMs,
    SANDBOX_LIMITS.maxTimeoutMs,
  );
  const output = allocateOutput(SANDBOX_LIMITS.outputBytes);
  const started = performance.now();
  const {
    engineBroken: _,
    limit,
    ...outcome
  } = runProgram(
    engine,
    {
      ...checked,
      deadline: Date.now() + timeoutMs,
      limits: runLimits(SANDBOX_LIMITS.memoryBytes, SANDBOX_LIMITS.stackBytes),
    },
    new OutputWriter(output),
  );
  const timeMs = Math.round(performance.now() - started);
  return { ...outcome, ...readOutput(output), timeMs, ...(limit ? { limit } : {}) };
}
