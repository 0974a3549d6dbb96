import { z } from 'zod';
import { RUN_LIMITS } from './limits.ts';

/** Argument schemas the run tools share. */

export const runIdArg = z
  .string()
  .max(40)
  .regex(/^arun_[0-9A-Z]{26}$/, 'a run id starts with arun_')
  .describe('The run (arun_…), from arena_start.');

export const workspacePathArg = z
  .string()
  .min(1)
  .max(RUN_LIMITS.pathChars)
  .describe("A relative workspace path, e.g. 'src/main.js' (no '..', no leading '/').");

export const offsetArg = z
  .number()
  .int()
  .min(0)
  .max(100_000_000)
  .optional()
  .describe('Where to start, in characters (from range.next_offset).');
export const maxCharsArg = z
  .number()
  .int()
  .min(1)
  .max(RUN_LIMITS.readMaxChars)
  .optional()
  .describe(
    `How many characters at most (default ${RUN_LIMITS.readDefaultChars}, up to ${RUN_LIMITS.readMaxChars}).`,
  );

export const sourceIdArg = z
  .string()
  .min(1)
  .max(64)
  .describe('A simulated source of the run (source_id from lab.search or arena_start).');
