import { z } from 'zod';
import { hashJson, nestsDeeperThan } from '../kernel/canonical-json.ts';
import type { Clock } from '../kernel/clock.ts';
import { closestNames } from '../kernel/closest.ts';
import { findCredential } from '../kernel/credential-scan.ts';
import {
  DomainError,
  type ErrorEnvelope,
  type ErrorExtras,
  errorEnvelope,
  toErrorEnvelope,
} from '../kernel/errors.ts';
import { withTenant } from '../kernel/tenant.ts';
import { illFormedStrings, toValidationDetail } from '../kernel/validation.ts';
import type { Database, TransactionEnd } from '../storage/database.ts';
import { isDatabaseUnavailable, RETRY_AFTER_SECONDS } from '../storage/unavailable.ts';
import type { Caller } from './caller.ts';
import { claimAtOpening, runOnceClosing } from './idempotency-repo.ts';
import { FRAMEWORK_LIMITS } from './limits.ts';
import type { Operation, OperationContext, ToolAvailability } from './operation.ts';
import { OutputCheck, publishedOutputSchema } from './output.ts';
import { withPermittedMoves } from './permitted-moves.ts';
import { DEFAULT_SCOPE, scopeNeeded, scopeString, scopesCover } from './scopes.ts';

export type OperationOutcome = { ok: true; result: unknown } | { ok: false; error: ErrorEnvelope };

export interface RunnerHooks {
  /** Called with every unexpected (non-domain) error, for the log. */
  onInternalError(err: unknown, requestId: string, operation: string): void;
  /** Called when the database could not be reached (a 503, not a bug), for the log. */
  onUnavailable?(err: unknown, requestId: string, operation: string): void;
  /** Called after every call, for metrics. */
  onFinished(operation: string, outcome: 'ok' | string, seconds: number): void;
  /** Hold every answer to its declared schema (CAIRN_CHECK_OUTPUTS; output.ts). */
  checkOutputs?: boolean;
}

/** A registered operation with what is derived from it once, at start. */
export interface RegisteredOperation<S> {
  op: Operation<S>;
  /** The full input schema, including idempotency_key for mutating operations. */
  schema: z.ZodObject;
  /** A tool with forms (forms.ts): the schema each form's own argument chooses; else `schema`. */
  forms?: Array<{ key: string | undefined; schema: z.ZodObject }>;
  /** JSON Schema of the input, as served by tools/list and /v1/public/tools. */
  jsonSchema: Record<string, unknown>;
  /** JSON Schema of the answer (success or refusal), when the operation declares its output. */
  outputSchema?: Record<string, unknown>;
}

export const idempotencyKey = z
  .string()
  .min(FRAMEWORK_LIMITS.idempotencyKey.minChars)
  .max(FRAMEWORK_LIMITS.idempotencyKey.maxChars)
  .describe(
    'A fresh key per intended action; repeating it with the same arguments returns the first result.',
  );

/**
 * Runs operations the one way every door shares: look up, scan for credentials, check
 * visibility, validate, then call the handler (in a transaction with idempotency when it mutates).
 */
export class OperationRunner<S> {
  private readonly outputCheck: OutputCheck | undefined;
  private readonly registry = new Map<string, RegisteredOperation<S>>();

  constructor(
    operations: Array<Operation<S>>,
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly services: S,
    private readonly hooks: RunnerHooks,
  ) {
    this.outputCheck = hooks.checkOutputs ? new OutputCheck() : undefined;
    for (const op of operations) {
      if (this.registry.has(op.name)) throw new Error(`operation ${op.name} is defined twice`);
      const withKey = (input: z.ZodObject) =>
        op.mutates ? input.extend({ idempotency_key: idempotencyKey }).strict() : input;
      const schema = withKey(op.input);
      const forms = op.forms?.map((form) => ({ key: form.key, schema: withKey(form.input) }));
      const jsonSchema = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
        string,
        unknown
      >;
      delete jsonSchema.$schema;
      const outputSchema = op.output ? publishedOutputSchema(op.output) : undefined;
      this.outputCheck?.register(op.name, op.output);
      this.registry.set(op.name, {
        op,
        schema,
        jsonSchema,
        ...(outputSchema ? { outputSchema } : {}),
        ...(forms ? { forms } : {}),
      });
    }
  }

  /** The operation of that name, if there is one. */
  get(name: string): Operation<S> | undefined {
    return this.registry.get(name)?.op;
  }

  /** Every operation, in definition order. */
  all(): Array<RegisteredOperation<S>> {
    return [...this.registry.values()];
  }

  /** Every operation with whether this caller may use it and why. */
  availability(caller: Caller): ToolAvailability[] {
    return this.all().map(({ op }) => {
      const v = op.visibility(caller);
      return { name: op.name, group: op.group, available: v.visible, why: v.why };
    });
  }

  /** The operations this caller may see (tools/list). */
  visibleTo(caller: Caller): Array<RegisteredOperation<S>> {
    return this.all().filter(({ op }) => op.visibility(caller).visible);
  }

  async run(
    name: string,
    args: unknown,
    caller: Caller,
    requestId: string,
    signal?: AbortSignal,
  ): Promise<OperationOutcome> {
    const started = performance.now();
    let outcome: OperationOutcome;
    try {
      // The shared pools below (the parser) give each owner its fair share (issue 40).
      outcome = await withTenant(caller.agent.ownerId, () =>
        this.execute(name, args ?? {}, caller, requestId, signal),
      );
    } catch (err) {
      // execute() maps handler errors itself; this catches failures of the pipeline around them.
      outcome = this.failure(err, requestId, name);
    }
    if (!outcome.ok) {
      const callable = new Set(
        this.visibleTo(caller)
          .filter(({ op }) => scopesCover(caller.scopes, op))
          .map(({ op }) => op.name),
      );
      outcome = { ok: false, error: withPermittedMoves(outcome.error, callable) };
    }
    if (this.outputCheck && this.registry.has(name)) outcome = this.checked(name, outcome, requestId);
    const label = outcome.ok ? 'ok' : outcome.error.error.code;
    this.hooks.onFinished(
      this.registry.has(name) ? name : '(unknown)',
      label,
      (performance.now() - started) / 1000,
    );
    return outcome;
  }

  /** The answer, or the INTERNAL refusal saying how it differs from its schema. */
  private checked(name: string, outcome: OperationOutcome, requestId: string): OperationOutcome {
    try {
      this.outputCheck?.verify(name, outcome.ok, outcome.ok ? outcome.result : outcome.error);
      return outcome;
    } catch (err) {
      this.hooks.onInternalError(err, requestId, name);
      return { ok: false, error: toErrorEnvelope(err, requestId) };
    }
  }

  private async execute(
    name: string,
    args: unknown,
    caller: Caller,
    requestId: string,
    signal?: AbortSignal,
  ): Promise<OperationOutcome> {
    const entry = this.registry.get(name);
    if (!entry) {
      // Only tools this caller may call now are suggested: an alternative must be able to succeed.
      const near = closestNames(
        name,
        this.visibleTo(caller).map(({ op }) => op.name),
      );
      return fail(
        'UNKNOWN_TOOL',
        `There is no tool named ${JSON.stringify(name.slice(0, 100))}.`,
        { tool: name.slice(0, 100) },
        near.length > 0
          ? {
              next: `Did you mean ${near.join(' or ')}? tools/list names every tool you can call now.`,
              alternatives: near.map((tool) => ({ tool, action: `Call ${tool}.` })),
            }
          : {
              alternatives: [
                { tool: 'capabilities_describe', action: 'See every tool and whether you may call it now.' },
              ],
            },
      );
    }
    if (nestsDeeperThan(args, FRAMEWORK_LIMITS.argumentsDepth)) {
      return fail(
        'VALIDATION_FAILED',
        `The arguments nest deeper than ${FRAMEWORK_LIMITS.argumentsDepth} levels.`,
        {
          detail: [
            {
              loc: ['arguments'],
              msg: `nested deeper than ${FRAMEWORK_LIMITS.argumentsDepth} levels`,
              type: 'too_deep',
            },
          ],
        },
      );
    }
    const illFormed = illFormedStrings(args, 'arguments');
    if (illFormed.length > 0) {
      return fail(
        'VALIDATION_FAILED',
        `The arguments of ${name} hold strings that are not valid text.`,
        { detail: illFormed },
        {
          next: `Remove NUL characters and lone surrogates from the strings listed in details.detail and call ${name} again.`,
        },
      );
    }
    const secret = findCredential(withoutOwnChecks(args, entry.op.checksOwnCredentials));
    if (secret) {
      // Retrying without the secret is the move, when the tool is this caller's to call at all.
      const again = entry.op.visibility(caller).visible
        ? { tool: name, action: `Call ${name} again without the credential at ${secret.path}.` }
        : { tool: 'capabilities_describe', action: 'See which tools you may call now.' };
      return fail(
        'CREDENTIAL_IN_INPUT',
        `The arguments contain what looks like a credential (${secret.kind}) at ${secret.path}. It was not stored.`,
        { path: secret.path, kind: secret.kind, tool: name },
        {
          next: 'Remove the credential and call again: credentials go in the Authorization header, never in arguments.',
          alternatives: [again],
        },
      );
    }
    const visibility = entry.op.visibility(caller);
    if (!visibility.visible) {
      // The rule's own reason says what would make the tool available (activation, membership,
      // a role); the next move repeats it rather than guessing at a mode.
      const next = `${visibility.why} capabilities_describe lists what you can use now.`;
      return fail(
        'TOOL_NOT_AVAILABLE',
        `${name} is not available to this identity: ${visibility.why}`,
        { tool: name, why: visibility.why, next_step: next },
        { next },
      );
    }
    // The credential's OAuth scopes (scopes.ts) can take a tool away; the MCP door answers this
    // with HTTP 403 before the call gets here, so this holds for any other door.
    if (!scopesCover(caller.scopes, entry.op)) {
      const needed = scopeNeeded(entry.op) ?? DEFAULT_SCOPE;
      const held = scopeString(caller.scopes ?? []);
      const next = `Authorize again asking for "${scopeString([...(caller.scopes ?? []), needed])}", what you hold and what ${name} needs.`;
      return fail(
        'INSUFFICIENT_SCOPE',
        `${name} needs the scope ${needed}; this access token was approved for ${held}.`,
        { tool: name, scope_needed: needed, scopes_held: caller.scopes ?? [] },
        { next },
      );
    }
    const parsed = schemaFor(entry, args).safeParse(args);
    if (!parsed.success) {
      return fail(
        'VALIDATION_FAILED',
        `The arguments of ${name} are not valid.`,
        { detail: toValidationDetail(parsed.error.issues, 'arguments') },
        {
          next: `Correct the arguments listed in details.detail and call ${name} again; tools/list has its input schema.`,
          alternatives: [{ tool: name, action: 'Call again with the arguments corrected.' }],
        },
      );
    }
    try {
      const result = entry.op.mutates
        ? await this.runMutation(entry.op, parsed.data, caller, requestId)
        : await entry.op.handler(
            this.context(caller, this.database.db, requestId, undefined, signal),
            parsed.data,
          );
      return { ok: true, result };
    } catch (err) {
      return this.failure(err, requestId, name);
    }
  }

  /**
   * A thrown error as the caller sees it: a domain refusal as itself, a database that cannot be
   * reached as SERVICE_UNAVAILABLE with a retry hint (nothing was changed: the transaction did
   * not commit), anything else as INTERNAL, logged.
   */
  private failure(err: unknown, requestId: string, name: string): OperationOutcome {
    if (err instanceof DomainError) return { ok: false, error: toErrorEnvelope(err, requestId) };
    if (isDatabaseUnavailable(err)) {
      this.hooks.onUnavailable?.(err, requestId, name);
      return fail('SERVICE_UNAVAILABLE', 'The database cannot be reached right now; nothing was changed.', {
        retry_after_seconds: RETRY_AFTER_SECONDS,
      });
    }
    this.hooks.onInternalError(err, requestId, name);
    return { ok: false, error: toErrorEnvelope(err, requestId) };
  }

  /**
   * The mutation, its idempotency record and its ledger events commit together or not at all; the
   * stored answer (and any event the handler sends with the COMMIT) closes the transaction.
   */
  private async runMutation(
    op: Operation<S>,
    data: Record<string, unknown>,
    caller: Caller,
    requestId: string,
  ): Promise<unknown> {
    const { idempotency_key: key, ...input } = data as { idempotency_key: string };
    const recordKey = { agentId: caller.agent.id, operation: op.name, key };
    const argsHash = hashJson(input);
    const claim = claimAtOpening(this.database.db, recordKey, argsHash, this.clock.now());
    const answer = await this.database.transaction(
      (tx, end, opened) =>
        runOnceClosing(tx, end, opened.length === 1, recordKey, argsHash, () =>
          op.handler(this.context(caller, tx, requestId, end), input),
        ),
      claim,
    );
    return answer();
  }

  private context(
    caller: Caller,
    ex: OperationContext<S>['ex'],
    requestId: string,
    end?: TransactionEnd,
    signal?: AbortSignal,
  ): OperationContext<S> {
    return {
      caller,
      ex,
      ...(end ? { end } : {}),
      ...(signal ? { signal } : {}),
      clock: this.clock,
      services: this.services,
      requestId,
      availability: () => this.availability(caller),
    };
  }
}

/** The schema the arguments are checked with: for a tool with forms, the form they choose. */
function schemaFor<S>(entry: RegisteredOperation<S>, args: unknown): z.ZodObject {
  if (!entry.forms) return entry.schema;
  const given = args !== null && typeof args === 'object' ? (args as Record<string, unknown>) : {};
  const chosen = entry.forms.find((form) => form.key !== undefined && given[form.key] !== undefined);
  return (chosen ?? entry.forms.find((form) => form.key === undefined))?.schema ?? entry.schema;
}

/** The arguments the runner scans: all but the string ones the operation checks itself. */
function withoutOwnChecks(args: unknown, own: readonly string[] | undefined): unknown {
  if (!own || args === null || typeof args !== 'object' || Array.isArray(args)) return args;
  const rest: Record<string, unknown> = { ...(args as Record<string, unknown>) };
  for (const name of own) if (typeof rest[name] === 'string') delete rest[name];
  return rest;
}

function fail(
  code: Parameters<typeof errorEnvelope>[0],
  message: string,
  details: Record<string, unknown>,
  extras: ErrorExtras = {},
) {
  return { ok: false as const, error: errorEnvelope(code, message, details, extras) };
}
