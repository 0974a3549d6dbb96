/**
 * Checks a request against the sandbox's caps before it takes a thread. A request over a cap is
 * not an error of the caller's code but of the run, so it is answered as a refused run (exit
 * code 125 with the reason on stderr), the way a shell answers a command it cannot start.
 */
import { normalizePath, SandboxPathError } from './paths.ts';
import {
  EXIT,
  type ExecRequest,
  type ExecResult,
  type RunLimits,
  SANDBOX_LIMITS,
  type SandboxFile,
} from './types.ts';

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

/** A request the sandbox will not start; `message` goes to the refused run's stderr. */
export class RequestRefused extends Error {}

/** The request's tree, entry, args and stdin in canonical form. */
export interface CheckedRequest {
  files: SandboxFile[];
  entry: string;
  args: string[];
  stdin: string;
}

/** @throws RequestRefused naming the first cap or rule the request breaks. */
export function checkRequest(
  request: ExecRequest,
  limits: { fileBytes: number; files: number; totalBytes: number },
): CheckedRequest {
  const path = (raw: string, what: string): string => {
    try {
      return normalizePath(raw);
    } catch (error) {
      if (error instanceof SandboxPathError) throw new RequestRefused(`${what}: ${error.message}`);
      throw error;
    }
  };
  if (!Array.isArray(request.files)) throw new RequestRefused('files must be a list.');
  if (request.files.length > limits.files) {
    throw new RequestRefused(
      `The workspace has ${request.files.length} files; the sandbox takes at most ${limits.files}.`,
    );
  }
  const files: SandboxFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const file of request.files) {
    const normal = path(file.path, 'A workspace path');
    if (seen.has(normal)) throw new RequestRefused(`The workspace names '${normal}' twice.`);
    seen.add(normal);
    if (typeof file.content !== 'string') throw new RequestRefused(`'${normal}' has no text content.`);
    const bytes = utf8Bytes(file.content);
    if (bytes > limits.fileBytes) {
      throw new RequestRefused(
        `'${normal}' has ${bytes} bytes; a file may have at most ${limits.fileBytes}.`,
      );
    }
    total += bytes;
    files.push({ path: normal, content: file.content });
  }
  if (total > limits.totalBytes) {
    throw new RequestRefused(
      `The workspace has ${total} bytes; the sandbox takes at most ${limits.totalBytes}.`,
    );
  }
  const entry = path(request.entry, 'The program');
  if (!seen.has(entry)) throw new RequestRefused(`No such file: ${entry}`);
  const args = request.args ?? [];
  if (!Array.isArray(args) || args.length > SANDBOX_LIMITS.args) {
    throw new RequestRefused(`A program takes at most ${SANDBOX_LIMITS.args} arguments.`);
  }
  for (const arg of args) {
    if (typeof arg !== 'string' || utf8Bytes(arg) > SANDBOX_LIMITS.argBytes) {
      throw new RequestRefused(`Each argument must be a string of at most ${SANDBOX_LIMITS.argBytes} bytes.`);
    }
  }
  const stdin = request.stdin ?? '';
  if (typeof stdin !== 'string' || utf8Bytes(stdin) > SANDBOX_LIMITS.stdinBytes) {
    throw new RequestRefused(`stdin must be a string of at most ${SANDBOX_LIMITS.stdinBytes} bytes.`);
  }
  return { files, entry, args: [...args], stdin };
}

/** The answer for a run that never started (or whose engine failed): exit code 125. */
export function refusedResult(message: string, timeMs = 0): ExecResult {
  return {
    exitCode: EXIT.REFUSED,
    stdout: '',
    stderr: `sandbox: ${message}\n`,
    stdoutTruncated: false,
    stderrTruncated: false,
    timeMs,
    memoryBytes: 0,
    changed: [],
    deleted: [],
  };
}

/** The limits a run is held to: the pool's memory and stack caps, the published caps for the rest. */
export function runLimits(memoryBytes: number, stackBytes: number): RunLimits {
  return {
    memoryBytes,
    stackBytes,
    outputBytes: SANDBOX_LIMITS.outputBytes,
    fileBytes: SANDBOX_LIMITS.fileBytes,
    files: SANDBOX_LIMITS.files,
    totalBytes: SANDBOX_LIMITS.totalBytes,
  };
}
