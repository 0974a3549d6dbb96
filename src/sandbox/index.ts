/** The sandbox layer's public surface: the pool, the contract types and the limits. */
export { execDirect, loadEngine } from './direct.ts';
export { normalizePath, SandboxPathError } from './paths.ts';
export { Sandbox, type SandboxOptions } from './sandbox.ts';
export {
  EXIT,
  type ExecRequest,
  type ExecResult,
  SANDBOX_LIMITS,
  type SandboxFile,
  type SandboxLimit,
} from './types.ts';
