import { z } from 'zod';
import type { Caller } from './caller.ts';
import {
  defineOperation,
  type Operation,
  type OperationContext,
  type ToolGroup,
  type Visibility,
} from './operation.ts';

/** Who is offered a tool: the rule tools/list applies, and its public wording, as one value. */
export interface Audience {
  visibleWhen: string;
  visibility(caller: Caller): Visibility;
}

type Camel<S extends string> = S extends `${infer Head}_${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
/** A tool's snake_case arguments as the domain takes them. */
export type Camelized<T> = { [K in keyof T as Camel<K & string>]: T[K] };

const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** Top-level keys only: nested values (task conditions, budgets) keep SPEC's own field names. */
export function camelize<T extends Record<string, unknown>>(input: T): Camelized<T> {
  return Object.fromEntries(Object.entries(input).map(([k, v]) => [camel(k), v])) as Camelized<T>;
}

export type StrictArgs<A extends z.ZodRawShape> = z.ZodObject<A, z.core.$strict>;

/** What a tool definition states; the rest of its Operation follows from it. */
export interface ToolSpec<S, A extends z.ZodRawShape, O> {
  name: string;
  group: ToolGroup;
  description: string;
  /** Its arguments, in the order clients see them; the object is strict. */
  args: A;
  mutates: boolean;
  writes?: boolean;
  audience: Audience;
  openWorld?: boolean;
  checksOwnCredentials?: readonly string[];
  /** What a success answers (output.ts); the handler's answer is typed by it. */
  output?: z.ZodType<O>;
  handler(ctx: OperationContext<S>, input: Camelized<z.infer<StrictArgs<A>>>): Promise<NoInfer<O>>;
}

/**
 * A tool from its particulars: the strict input schema from `args`, visibility and its wording
 * from `audience`, and a handler that takes its arguments in camelCase, as the domain does.
 */
export function defineTool<S, A extends z.ZodRawShape, O>(
  spec: ToolSpec<S, A, O>,
): Operation<S, StrictArgs<A>, O> {
  return defineOperation({
    name: spec.name,
    group: spec.group,
    description: spec.description,
    input: z.object(spec.args).strict(),
    mutates: spec.mutates,
    ...(spec.writes ? { writes: true } : {}),
    ...(spec.openWorld !== undefined ? { openWorld: spec.openWorld } : {}),
    ...(spec.output ? { output: spec.output } : {}),
    ...(spec.checksOwnCredentials ? { checksOwnCredentials: spec.checksOwnCredentials } : {}),
    visibleWhen: spec.audience.visibleWhen,
    visibility: spec.audience.visibility,
    handler: (ctx, input) => spec.handler(ctx, camelize(input)),
  });
}
