import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { z } from 'zod';
import { DomainError } from '../kernel/errors.ts';

/**
 * What a tool answers, as a schema (issue 42 item 6): each operation declares the shape of its
 * success with zod (`output`), and tools/list shows clients the JSON Schema of its answer, the
 * success or a refusal. Refusals are part of every tool's answer schema because clients validate
 * `structuredContent` even when `isError` is true (the v1 SDK client does), and Cairn's refusals
 * carry their envelope there (SPEC Errors 1).
 */

/** One move a caller may make (kernel/errors.ts Alternative): a success's next_steps, a refusal's alternatives. */
export const move = z.object({
  tool: z.string().optional().describe('The tool to call, when the move is a tool call.'),
  action: z.string().describe('What to do, in words.'),
  arguments: z
    .record(z.string(), z.unknown())
    .optional()
    .describe('Arguments known to fit (the caller adds the rest the tool needs).'),
});

/** A success's next_steps: the moves the caller may make now. */
export const nextSteps = z.array(move).describe('What you may do next.');

/** A time as answers carry it: ISO 8601 in UTC. */
export const timestamp = z.string().describe('An ISO 8601 time in UTC.');

/** A refusal's envelope (kernel/errors.ts ErrorEnvelope), the same for every tool. */
export const refusal = z
  .object({
    status: z.literal('ERROR'),
    error: z.object({
      code: z
        .string()
        .regex(/^[A-Z][A-Z0-9_]*$/)
        .describe('The error code; /v1/public/errors lists every code with what to do next.'),
      retryable: z.boolean(),
      message: z.string(),
      other_readers: z.enum(['DO_NOT_BYPASS', 'WAIT_FOR_OWNER', 'ALLOWED']),
      details: z.record(z.string(), z.unknown()),
      next_action: z.string().describe('The next move, in words.'),
      allowed_alternatives: z
        .array(move)
        .optional()
        .describe('What the caller may do instead; a tool named here is one it may call now.'),
    }),
  })
  .describe('A refusal (isError: true).');

type JsonSchema = Record<string, unknown>;

function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  // Timestamps, ids and the like are plain strings; nothing in an answer is unrepresentable.
  const json = z.toJSONSchema(schema, { io, unrepresentable: 'throw', reused: 'inline' }) as JsonSchema;
  delete json.$schema;
  return json;
}

/**
 * The answer's schema as tools/list shows it: an object that is the success or a refusal. It is
 * open (no additionalProperties: false), so an answer that gains a field does not break a client
 * that validates; no `$schema`, so it reads as 2020-12 (MCP's default) and as draft-07 (the v1
 * SDK's Ajv) alike.
 */
export function publishedOutputSchema(success: z.ZodType): JsonSchema {
  return { type: 'object', anyOf: [jsonSchemaOf(success, 'input'), jsonSchemaOf(refusal, 'input')] };
}

/**
 * The development check (CAIRN_CHECK_OUTPUTS, on in the test suite): every answer, as a client
 * receives it (its JSON), is held to the closed form of its schema, where a field the schema
 * does not name is a mismatch too, so the declared schemas stay whole as the answers change.
 */
export class OutputCheck {
  private readonly ajv = addFormats.default(new Ajv2020.default({ allErrors: true, strict: false }));
  private readonly successes = new Map<string, Validator>();
  private readonly refusals: Validator = this.ajv.compile(jsonSchemaOf(refusal, 'output'));

  /** A tool without a declared output has its refusals checked only. */
  register(name: string, success: z.ZodType | undefined): void {
    if (success) this.successes.set(name, this.ajv.compile(jsonSchemaOf(success, 'output')));
  }

  /** Throws (INTERNAL, with the mismatch in its message) when the answer is not of its schema. */
  verify(name: string, ok: boolean, answer: unknown): void {
    const validate = ok ? this.successes.get(name) : this.refusals;
    if (!validate || validate(JSON.parse(JSON.stringify(answer)))) return;
    const why = this.ajv.errorsText(validate.errors, { separator: '; ' }).slice(0, 2_000);
    throw new DomainError('INTERNAL', `The answer of ${name} does not match its output schema: ${why}`);
  }
}

type Validator = ValidateFunction;
