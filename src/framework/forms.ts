import { z } from 'zod';
import { DomainError } from '../kernel/errors.ts';
import type { Operation } from './operation.ts';

/**
 * One tool, two forms from two areas: `result_verify` checks a campaign task (`task_id`) or ends
 * an Arena run (`run_id`); `message_append` writes to a campaign or to a TEAM run's thread. An
 * area offers its form with `formKey` (the argument that chooses it) and the catalogue joins it
 * with the other area's operation of the same name, so neither area imports the other and the
 * client sees one tool, whose schema has both forms' arguments.
 */
export interface ToolForm {
  /** The argument whose presence chooses this form. */
  formKey: string;
}

// biome-ignore lint/suspicious/noExplicitAny: operations of any area's services.
type AnyOperation = Operation<any>;

/** Both forms' arguments, all optional; an argument both have accepts what either accepts. */
function joinedShape(base: AnyOperation, form: AnyOperation): z.ZodRawShape {
  const a = base.input.shape as Record<string, z.ZodType>;
  const b = form.input.shape as Record<string, z.ZodType>;
  const shape: Record<string, z.ZodType> = {};
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[key];
    const y = b[key];
    shape[key] = (x && y ? z.union([x, y]) : ((x ?? y) as z.ZodType)).optional();
  }
  return shape;
}

/**
 * The tool as clients see it: the base operation's arguments and the form's, all optional in
 * the listed schema; the runner checks a call with the schema of the form it chooses (`forms`),
 * so each form keeps its own rules and wording. Visible when either form is.
 */
export function joinForms(base: AnyOperation, form: AnyOperation & ToolForm): AnyOperation {
  if (base.mutates !== form.mutates)
    throw new Error(`The forms of ${base.name} must both mutate or both not.`);
  return {
    ...base,
    description: `${base.description} ${form.description}`,
    input: z.object(joinedShape(base, form)).strict(),
    // Either form's answer; declared once both forms declare theirs.
    ...(base.output && form.output ? { output: z.union([base.output, form.output]) } : {}),
    // The runner checks the arguments with the schema of the form they choose.
    forms: [
      { key: form.formKey, input: form.input },
      { key: undefined, input: base.input },
    ],
    visibility(caller) {
      const a = base.visibility(caller);
      const b = form.visibility(caller);
      if (a.visible && b.visible) return { visible: true, why: `${a.why} ${b.why}` };
      return a.visible ? a : b.visible ? b : { visible: false, why: `${a.why} ${b.why}` };
    },
    visibleWhen: `${base.visibleWhen}; or (with ${form.formKey}) ${form.visibleWhen}`,
    handler(ctx, input) {
      const args = input as Record<string, unknown>;
      const chosen = args[form.formKey] !== undefined ? form : base;
      const visible = chosen.visibility(ctx.caller);
      if (!visible.visible) {
        throw new DomainError(
          'TOOL_NOT_AVAILABLE',
          `This form of ${base.name} is not available to you: ${visible.why}`,
          {
            tool: base.name,
            why: visible.why,
          },
        );
      }
      return chosen.handler(ctx, args);
    },
  };
}

export function isForm(op: AnyOperation): op is AnyOperation & ToolForm {
  return typeof (op as Partial<ToolForm>).formKey === 'string';
}
