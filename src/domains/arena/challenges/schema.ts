/**
 * The `challenge.json` schema (docs/arena.md, "Challenge packages"). Strict everywhere: an
 * unknown field is a mistake in the package, not something to ignore. Every rubric check is
 * deterministic and reads only the run's artifacts, its final workspace and its message thread.
 */
import { z } from 'zod';

/** Tool names a challenge may allow (the Arena group, the workspace and the lab fixtures). */
export const ARENA_TOOL_NAMES = [
  'workspace.list',
  'workspace.read',
  'workspace.write',
  'workspace.delete',
  'workspace.diff',
  'sandbox.exec',
  'lab.search',
  'lab.fetch',
  'lab.table',
  'artifact_submit',
  'result_verify',
  'message_append',
] as const;

export const CHALLENGE_LIMITS = {
  packageBytes: 2 * 1024 * 1024,
  packageFiles: 200,
  pathChars: 240,
  statementChars: 20_000,
  titleChars: 200,
  rubricLines: 50,
  sources: 50,
  /** Of a quotation, after whitespace normalisation, unless a check asks for more. */
  minQuoteChars: 20,
} as const;

const slug = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'lower-case letters, digits and single hyphens');
const artifactName = z
  .string()
  .min(1)
  .max(120)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, underscore, hyphen');
/** RFC 6901; '' is the whole document. */
const pointer = z
  .string()
  .max(200)
  .regex(/^(?:\/[^/]*)*$/, "a JSON pointer ('' or '/field/0')");
const workspacePath = z.string().min(1).max(CHALLENGE_LIMITS.pathChars);
const role = z.enum(['A', 'B', 'C', 'D']);
const jsonValue: z.ZodType<unknown> = z.json();

export const MESSAGE_TYPES = ['NOTE', 'QUESTION', 'HANDOFF', 'RESULT'] as const;

const checkSchema = z.discriminatedUnion('type', [
  z
    .object({
      type: z.literal('quote_in_source'),
      artifact: artifactName,
      must_contain: z.string().min(1).max(500),
      min_chars: z.number().int().min(CHALLENGE_LIMITS.minQuoteChars).max(2_000).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('json_equals'),
      artifact: artifactName,
      expected: z.union([z.array(jsonValue).max(1_000), z.record(z.string().max(200), jsonValue)]),
      partial: z.literal('rows').optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('json_field_equals'),
      artifact: artifactName,
      pointer,
      value: jsonValue,
      ignore_case: z.boolean().optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('json_field_mentions_all'),
      artifact: artifactName,
      pointer,
      tokens: z.array(z.string().min(1).max(200)).min(1).max(20),
    })
    .strict(),
  z
    .object({
      type: z.literal('sandbox_passes'),
      entry: workspacePath,
      args: z.array(z.string().max(1_000)).max(20).optional(),
      expect_stdout: z.string().min(1).max(1_000).optional(),
      timeout_ms: z.number().int().min(100).max(30_000).optional(),
    })
    .strict(),
  z
    .object({
      type: z.literal('file_unchanged'),
      paths: z.array(workspacePath).min(1).max(50),
    })
    .strict(),
  z
    .object({
      type: z.literal('message_present'),
      message_type: z.enum(MESSAGE_TYPES),
      from_role: role.optional(),
      to_role: role.optional(),
    })
    .strict(),
]);

const rubricLineSchema = z
  .object({
    id: slug,
    points: z.number().int().min(1).max(100),
    description: z.string().min(1).max(1_000),
    check: checkSchema,
  })
  .strict();

const sourceSchema = z
  .object({
    id: slug,
    title: z.string().min(1).max(CHALLENGE_LIMITS.titleChars),
    url: z
      .string()
      .max(500)
      .regex(/^lab:\/\/[^\s]+$/, "a simulated address: 'lab://…'"),
    file: z.string().min(1).max(CHALLENGE_LIMITS.pathChars),
    kind: z.enum(['TEXT', 'PDF_TEXT', 'TABLE']),
  })
  .strict();

export const challengeSchema = z
  .object({
    id: slug,
    version: z.number().int().min(1).max(1_000_000),
    title: z.string().min(1).max(CHALLENGE_LIMITS.titleChars),
    statement: z.string().min(1).max(CHALLENGE_LIMITS.statementChars),
    mode: z.enum(['SOLO', 'TEAM']),
    team_size: z.number().int().min(2).max(4).optional(),
    time_limit_minutes: z.number().int().min(1).max(60),
    allowed_tools: z.array(z.enum(ARENA_TOOL_NAMES)).min(1).max(ARENA_TOOL_NAMES.length),
    world: z
      .object({
        files: z.string().min(1).max(CHALLENGE_LIMITS.pathChars),
        sources: z.array(sourceSchema).max(CHALLENGE_LIMITS.sources),
      })
      .strict(),
    verifier: z
      .object({ rubric: z.array(rubricLineSchema).min(1).max(CHALLENGE_LIMITS.rubricLines) })
      .strict(),
  })
  .strict();

export type Challenge = z.infer<typeof challengeSchema>;
export type RubricLine = Challenge['verifier']['rubric'][number];
export type Check = RubricLine['check'];
export type ChallengeSource = Challenge['world']['sources'][number];
export type MessageType = (typeof MESSAGE_TYPES)[number];
