import { SANDBOX_LIMITS } from '../../../sandbox/index.ts';

/**
 * The numbers of a run (docs/arena.md, "Runs"). The workspace caps sit inside the sandbox's own,
 * so every workspace can be handed to sandbox.exec whole.
 */
export const RUN_LIMITS = {
  /** SPEC Limits: an assignment lasts one hour unless started. */
  assignmentMs: 60 * 60 * 1000,
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
