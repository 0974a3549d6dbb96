import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openTestDatabase } from '../../test/support/database.ts';
import { createAgent } from '../../test/support/factories.ts';
import { IdentityService } from '../domains/identity/identities.ts';
import { FakeClock } from '../kernel/clock.ts';
import { DomainError } from '../kernel/errors.ts';
import type { Database } from '../storage/database.ts';
import type { Caller } from './caller.ts';
import { defineOperation, type Operation, type OperationContext } from './operation.ts';
import { OperationRunner } from './runner.ts';

/** The runner with operations defined here, over the real database and the real identity service. */

let database: Database;
let identity: IdentityService;
let caller: Caller;
const clock = new FakeClock();
const internalErrors: unknown[] = [];
let calls = 0;

type S = { identity: IdentityService };

const ops = [
  defineOperation({
    name: 'failing_write',
    group: 'Identity',
    description: 'Writes, then fails: the write must not survive.',
    input: z.object({ model: z.string().max(50), fail: z.enum(['domain', 'bug', 'no']) }).strict(),
    mutates: true,
    visibleWhen: 'always',
    visibility: () => ({ visible: true, why: 'test' }),
    handler: async (ctx: OperationContext<S>, input) => {
      calls++;
      await ctx.services.identity.updateAbout(ctx.ex, ctx.caller, { model: input.model });
      if (input.fail === 'domain') throw new DomainError('CONFLICT', 'refused on purpose');
      if (input.fail === 'bug') throw new Error('secret internal detail');
      return { ok: true, model: input.model };
    },
  }),
] as unknown as Array<Operation<S>>;

let runner: OperationRunner<S>;

beforeAll(async () => {
  database = await openTestDatabase();
  identity = new IdentityService(database, clock, 'http://127.0.0.1/mcp');
  const agent = await createAgent(identity, { mode: 'READ' });
  caller = (await identity.authenticate(agent.key)).caller;
  runner = new OperationRunner(
    ops,
    database,
    clock,
    { identity },
    {
      onInternalError: (err) => internalErrors.push(err),
      onFinished: () => {},
    },
  );
});
afterAll(async () => {
  await database?.close();
});

const stored = async () => (await identity.findAgent(caller.agent.id))?.about.model;

describe('OperationRunner mutations', () => {
  it('rolls back the write and forgets the key when the handler refuses', async () => {
    const out = await runner.run(
      'failing_write',
      { model: 'm1', fail: 'domain', idempotency_key: 'k-domain-1' },
      caller,
      'r1',
    );
    expect(out).toMatchObject({
      ok: false,
      error: { error: { code: 'CONFLICT', message: 'refused on purpose' } },
    });
    expect(await stored()).toBeUndefined();
    const retry = await runner.run(
      'failing_write',
      { model: 'm1', fail: 'no', idempotency_key: 'k-domain-1' },
      caller,
      'r2',
    );
    expect(retry).toEqual({ ok: true, result: { ok: true, model: 'm1' } });
    expect(await stored()).toBe('m1');
  });

  it('turns an unexpected error into INTERNAL with the request id only, and logs the real one', async () => {
    const out = await runner.run(
      'failing_write',
      { model: 'm2', fail: 'bug', idempotency_key: 'k-bug-0001' },
      caller,
      'req-77',
    );
    expect(out).toMatchObject({
      ok: false,
      error: { error: { code: 'INTERNAL', details: { request_id: 'req-77' } } },
    });
    expect(JSON.stringify(out)).not.toContain('secret internal detail');
    expect(String(internalErrors.at(-1))).toContain('secret internal detail');
    expect(await stored()).toBe('m1');
  });

  it('requires an idempotency_key on mutating operations and calls the handler once per key', async () => {
    const missing = await runner.run('failing_write', { model: 'm3', fail: 'no' }, caller, 'r3');
    expect(missing).toMatchObject({ ok: false, error: { error: { code: 'VALIDATION_FAILED' } } });
    const before = calls;
    await runner.run(
      'failing_write',
      { model: 'm3', fail: 'no', idempotency_key: 'k-once-001' },
      caller,
      'r4',
    );
    await runner.run(
      'failing_write',
      { fail: 'no', model: 'm3', idempotency_key: 'k-once-001' },
      caller,
      'r5',
    );
    expect(calls - before).toBe(1);
  });
});
