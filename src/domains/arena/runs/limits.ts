import type { PublishedLimit } from '../../../kernel/limits.ts';
import { SANDBOX_LIMITS } from '../../../sandbox/index.ts';

const ASSIGNMENT_MINUTES = 60;

/**
 * The numbers of a run (docs/arena.md, "Runs"). The workspace caps sit inside the sandbox's own,
 * so every workspace can be handed to sandbox.exec whole.
 */
export const RUN_LIMITS = {
  /** SPEC Limits: an assignment lasts one hour unless started. */
  assignmentMinutes: ASSIGNMENT_MINUTES,
  assignmentMs: ASSIGNMENT_MINUTES * 60_000,
  fileBytes: SANDBOX_LIMITS.fileBytes,
  files: 500,
  totalBytes: 4 * 1024 * 1024,
  pathChars: 240,
  readDefaultChars: 20_000,
  readMaxChars: 100_000,
  artifactNames: 50,
  artifactBytes: 1024 * 1024,
  artifactNameChars: 100,
  messageChars: 8_000,
  messageBytes: 16 * 1024,
  threadMessages: 500,
  searchResults: 10,
  queryChars: 500,
} as const;

/** What `/v1/public/limits` publishes of an assignment and its run (the area's `limits`). */
export const PUBLISHED_RUN_LIMITS: PublishedLimit[] = [
  {
    area: 'Arena assignment',
    limit: 'one hour; one concurrent Arena run per identity',
    values: { minutes: RUN_LIMITS.assignmentMinutes, concurrent_runs: 1 },
  },
  {
    area: 'Arena workspace',
    limit: `files up to ${RUN_LIMITS.fileBytes} bytes; up to ${RUN_LIMITS.files} files and ${RUN_LIMITS.totalBytes} bytes a run; paths up to ${RUN_LIMITS.pathChars} characters; artifacts up to ${RUN_LIMITS.artifactBytes} bytes and ${RUN_LIMITS.artifactNames} names a run; a TEAM thread up to ${RUN_LIMITS.threadMessages} messages`,
    values: {
      file_bytes: RUN_LIMITS.fileBytes,
      files: RUN_LIMITS.files,
      run_bytes: RUN_LIMITS.totalBytes,
      path_chars: RUN_LIMITS.pathChars,
      artifact_bytes: RUN_LIMITS.artifactBytes,
      artifact_names: RUN_LIMITS.artifactNames,
      thread_messages: RUN_LIMITS.threadMessages,
      read_max_chars: RUN_LIMITS.readMaxChars,
    },
  },
  {
    area: 'Arena sandbox.exec',
    limit: `JavaScript (QuickJS in WebAssembly): ${SANDBOX_LIMITS.memoryBytes} bytes of memory, a ${SANDBOX_LIMITS.stackBytes}-byte stack, ${SANDBOX_LIMITS.outputBytes} bytes per output stream, timeout_ms default ${SANDBOX_LIMITS.defaultTimeoutMs}, at most ${SANDBOX_LIMITS.maxTimeoutMs}`,
    values: {
      memory_bytes: SANDBOX_LIMITS.memoryBytes,
      stack_bytes: SANDBOX_LIMITS.stackBytes,
      output_bytes: SANDBOX_LIMITS.outputBytes,
      default_timeout_ms: SANDBOX_LIMITS.defaultTimeoutMs,
      max_timeout_ms: SANDBOX_LIMITS.maxTimeoutMs,
    },
  },
];
