import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FakeClock } from '../kernel/clock.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Database } from '../storage/database.ts';
import type { Caller } from './caller.ts';
import { defineOperation, type Operation } from './operation.ts';
import { nextSteps, publishedOutputSchema } from './output.ts';
import { OperationRunner } from './runner.ts';

/** Output schemas: what tools/list publishes, and the check the test suite runs every answer through. */

const declared = z.object({ count: z.number().int(), note: z.string().nullable(), next_steps: nextSteps });

const ops = [
  defineOperation({
    name: 'answers_as_declared',
    group: 'Read',
    description: 'Answers what its schema says.',
    input: z.object({ extra: z.boolean().optional(), refuse: z.boolean().optional() }).strict(),
    mutates: false,
    visibleWhen: 'always',
    visibility: () => ({ visible: true, why: 'test' }),
    output: declared,
    handler: async (_ctx, input) => {
      if (input.refuse) throw new DomainError('CONFLICT', 'refused on purpose');
      const answer = { count: 2, note: null, next_steps: [{ action: 'Nothing.' }] };
      // An answer that grew a field its schema does not name.
      return input.extra ? { ...answer, surprise: true } : answer;
    },
  }),
] as unknown as Array<Operation<unknown>>;

const caller = { agent: { id: 'agt_TEST', ownerId: 'own_TEST' } } as unknown as Caller;
const internal: unknown[] = [];
const runnerWith = (checkOutputs: boolean) =>
  new OperationRunner(
    ops,
    {} as Database,
    new FakeClock(),
    {},
    {
      onInternalError: (err) => internal.push(err),
      onFinished: () => {},
      checkOutputs,
    },
  );

describe('declared outputs', () => {
  it('publishes the answer as the success or a refusal, open, without $schema, readable as draft-07 and 2020-12', () => {
    const schema = runnerWith(false).all()[0]?.outputSchema as Record<string, unknown>;
    expect(schema.type).toBe('object');
    expect(schema.$schema).toBeUndefined();
    expect(JSON.stringify(schema)).not.toContain('"additionalProperties":false');
    // The v1 SDK client validates with a draft-07 Ajv; MCP's default dialect is 2020-12.
    for (const ajv of [new Ajv({ strict: true }), new Ajv2020({ strict: true })]) {
      const validate = ajv.compile(schema);
      expect(validate({ count: 1, note: 'x', next_steps: [] })).toBe(true);
      expect(validate({ count: 1, note: 'x', next_steps: [], later_field: 1 })).toBe(true);
      expect(validate({ count: 'one', note: null, next_steps: [] })).toBe(false);
      expect(
        validate({
          status: 'ERROR',
          error: {
            code: 'CONFLICT',
            retryable: false,
            message: 'm',
            other_readers: 'ALLOWED',
            details: {},
            next_action: 'n',
          },
        }),
      ).toBe(true);
    }
  });

  it('with the check on, an answer with a field its schema does not name is INTERNAL, naming the field', async () => {
    const runner = runnerWith(true);
    expect(await runner.run('answers_as_declared', {}, caller, 'r1')).toMatchObject({ ok: true });
    const grown = await runner.run('answers_as_declared', { extra: true }, caller, 'r2');
    expect(grown).toMatchObject({ ok: false, error: { error: { code: 'INTERNAL' } } });
    expect(String((internal.at(-1) as Error).message)).toMatch(
      /answer of answers_as_declared does not match its output schema: .*additional properties/,
    );
    // Refusals are held to the refusal envelope, and this one is of it.
    const refused = await runner.run('answers_as_declared', { refuse: true }, caller, 'r3');
    expect(refused).toMatchObject({ ok: false, error: { error: { code: 'CONFLICT' } } });
  });

  it('with the check off (the default), the answer goes out as it is', async () => {
    const grown = await runnerWith(false).run('answers_as_declared', { extra: true }, caller, 'r4');
    expect(grown).toMatchObject({ ok: true, result: { surprise: true } });
  });

  it('publishes a schema only for an operation that declares one', () => {
    const bare = defineOperation({
      name: 'undeclared',
      group: 'Read',
      description: 'No output declared.',
      input: z.object({}).strict(),
      mutates: false,
      visibleWhen: 'always',
      visibility: () => ({ visible: true, why: 'test' }),
      handler: async () => ({}),
    }) as unknown as Operation<unknown>;
    const runner = new OperationRunner(
      [bare],
      {} as Database,
      new FakeClock(),
      {},
      {
        onInternalError: () => {},
        onFinished: () => {},
      },
    );
    expect(runner.all()[0]?.outputSchema).toBeUndefined();
    expect(publishedOutputSchema(declared).anyOf).toHaveLength(2);
  });
});
