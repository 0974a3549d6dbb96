/**
 * A sandbox thread: holds one QuickJS WebAssembly module and runs jobs in it one at a time, each
 * in its own runtime (engine.ts). The module's memory is a WebAssembly.Memory that cannot grow
 * past the start-up size plus the run's memory cap, which bounds a run exactly where QuickJS's
 * own accounting does not. A module that trapped, or whose memory grew, is replaced before the
 * next job, so every run starts from a clean, small heap.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { newQuickJSWASMModule, newVariant, type QuickJSWASMModule, RELEASE_SYNC } from 'quickjs-emscripten';
import { runProgram } from './engine.ts';
import { OutputWriter } from './output.ts';
import type { RunJob, RunOutcome } from './types.ts';

/** What the pool gives each thread when it starts it. */
export interface WorkerConfig {
  wasmBaseBytes: number;
  memoryBytes: number;
  /** The thread's nice value (Linux): above the event loop's 0, so busy programs yield to it. */
  niceness: number;
}

/** One job as posted to the thread. */
export interface WorkerJob {
  job: RunJob;
  output: SharedArrayBuffer;
}

/** What the thread posts: once `ready`, then one outcome per job. */
export type WorkerMessage = { ready: true } | { outcome: RunOutcome };

const PAGE_BYTES = 64 * 1024;

interface Engine {
  module: QuickJSWASMModule;
  memory: WebAssembly.Memory;
}

async function buildEngine(config: WorkerConfig): Promise<Engine> {
  const initial = Math.ceil(config.wasmBaseBytes / PAGE_BYTES);
  const memory = new WebAssembly.Memory({
    initial,
    maximum: initial + Math.ceil(config.memoryBytes / PAGE_BYTES),
  });
  const module = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmMemory: memory }));
  return { module, memory };
}

// A busy program must not take the CPU from the server's event loop (on 2 cores, two busy
// threads at the same priority left /health over a second behind): this thread runs at a lower
// priority. Only on Linux, where a nice value is per thread; elsewhere it would be the process's.
const config = workerData as WorkerConfig;
if (process.platform === 'linux' && config.niceness !== 0) {
  try {
    setPriority(config.niceness);
  } catch {
    // Not allowed here: the thread keeps the process's priority.
  }
}

const port = parentPort;
if (!port) throw new Error('worker.ts runs only as a worker thread.');

let engine = buildEngine(config);

port.on('message', async ({ job, output }: WorkerJob) => {
  const { module, memory } = await engine;
  const outcome = runProgram(module, job, new OutputWriter(output));
  port.postMessage({ outcome } satisfies WorkerMessage);
  if (outcome.engineBroken || memory.buffer.byteLength > config.wasmBaseBytes) engine = buildEngine(config);
});

await engine;
port.postMessage({ ready: true } satisfies WorkerMessage);
