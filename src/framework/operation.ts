import type { z } from 'zod';
import type { Clock } from '../kernel/clock.ts';
import type { Executor, TransactionEnd } from '../storage/database.ts';
import type { Caller } from './caller.ts';

/** SPEC's tool groups, in SPEC's order. */
export const TOOL_GROUPS = [
  'Always',
  'Read',
  'Campaigns',
  'Arena',
  'Matching',
  'Open pickup',
  'Skills',
  'Identity',
  'Workspace tools',
] as const;
export type ToolGroup = (typeof TOOL_GROUPS)[number];

/** Whether a caller may see and call an operation, with the reason in words. */
export interface Visibility {
  visible: boolean;
  why: string;
}

/** One tool as a given caller sees it. */
export interface ToolAvailability {
  name: string;
  group: ToolGroup;
  available: boolean;
  why: string;
}

/** What every handler receives besides its input. */
export interface OperationContext<S> {
  caller: Caller;
  /** Every tool with whether this caller may use it (for capabilities_describe). */
  availability(): ToolAvailability[];
  /** The open transaction for mutating operations; the database for reads. */
  ex: Executor;
  /**
   * A mutation's closing statements, sent with its COMMIT (storage/transaction-end.ts): for a
   * write that must come last and hold its lock only while PostgreSQL commits (a ledger event).
   */
  end?: TransactionEnd;
  clock: Clock;
  services: S;
  requestId: string;
  /**
   * Aborted when the caller has gone (its connection closed): a call that waits (events_watch and
   * the other long polls) stops waiting, since nobody would read its answer.
   */
  signal?: AbortSignal | undefined;
}

/**
 * One operation, many doors (DESIGN.md convention 1): the MCP tool list, `/v1/public/tools`,
 * idempotency, credential scanning and error mapping are all driven from this definition.
 */
export interface Operation<S, I extends z.ZodObject = z.ZodObject, O = unknown> {
  /** The MCP tool name, exactly SPEC's. */
  name: string;
  group: ToolGroup;
  description: string;
  /** Strict input schema, without idempotency_key: mutating operations get it added. */
  input: I;
  /** Mutating operations run in a transaction and require idempotency_key. */
  mutates: boolean;
  /**
   * Changes state without being `mutates`: it keeps its own short transactions (a workspace write,
   * a sandbox run's write-back, whose repeat changes nothing more) and takes no idempotency_key.
   * Announced to clients as not read-only.
   */
  writes?: boolean;
  /**
   * Top-level string arguments this operation checks for credentials itself, so that it can
   * record the refusal (fetch_text's url gets a policy receipt). The runner scans all others.
   */
  checksOwnCredentials?: readonly string[];
  /** Reaches outside Cairn (the web, a search provider): announced to clients as openWorldHint. */
  openWorld?: boolean;
  /**
   * A tool joined from forms (forms.ts): each form's own strict schema, chosen by the presence of
   * its argument (`key`; undefined for the default form). `input` is then what clients are shown.
   */
  forms?: ReadonlyArray<{ key: string | undefined; input: z.ZodObject }>;
  /** Public wording of the visibility rule, for the tool reference. */
  visibleWhen: string;
  visibility(caller: Caller): Visibility;
  /**
   * What a success answers (output.ts): tools/list shows its JSON Schema, with the refusal's
   * beside it, and the handler's answer is typed by it. Every tool declares one.
   */
  output?: z.ZodType<O>;
  handler(ctx: OperationContext<S>, input: z.infer<I>): Promise<NoInfer<O>>;
}

/** Typed helper so each definition infers its input type from its schema. */
export function defineOperation<S, I extends z.ZodObject, O>(op: Operation<S, I, O>): Operation<S, I, O> {
  return op;
}
