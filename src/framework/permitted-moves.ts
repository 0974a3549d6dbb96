import type { Alternative, ErrorEnvelope } from '../kernel/errors.ts';

/**
 * A refusal's moves, held to what this caller may do (docs/decisions.md, "Every refusal names a
 * permitted move"): an alternative naming a tool the caller cannot call now is dropped, since it
 * could not succeed; and a refusal whose next_action names tools the caller may call, but that
 * carries no alternative, gets one per tool named, in the order named, each with the sentence of
 * next_action that says what to do with it. The words were already written where the refusal was
 * raised; this gives an agent the same moves in structured form.
 */
export function withPermittedMoves(envelope: ErrorEnvelope, callable: ReadonlySet<string>): ErrorEnvelope {
  const error = envelope.error;
  const given = error.allowed_alternatives ?? [];
  const kept = given.filter((alt) => alt.tool === undefined || callable.has(alt.tool));
  const moves = kept.length > 0 ? kept : movesNamedIn(error.next_action, callable);
  if (moves.length === given.length && moves.every((m, i) => m === given[i])) return envelope;
  const { allowed_alternatives: _dropped, ...rest } = error;
  return { ...envelope, error: { ...rest, ...(moves.length > 0 ? { allowed_alternatives: moves } : {}) } };
}

function movesNamedIn(next: string, callable: ReadonlySet<string>): Alternative[] {
  const sentences = next.split(/(?<=[.?!])\s+/);
  const found: Array<{ at: number; tool: string }> = [];
  for (const tool of callable) {
    const at = next.search(patternOf(tool));
    if (at >= 0) found.push({ at, tool });
  }
  return found
    .sort((a, b) => a.at - b.at)
    .map(({ tool }) => ({
      tool,
      action: sentences.find((s) => s.includes(tool))?.trim() ?? next,
    }));
}

/** A tool's name as a whole word, compiled once per name: refusals run this for every tool. */
const patterns = new Map<string, RegExp>();
function patternOf(tool: string): RegExp {
  let pattern = patterns.get(tool);
  if (!pattern) {
    pattern = new RegExp(`(?<![\\w.])${tool.replace(/\./g, '\\.')}(?![\\w])`);
    patterns.set(tool, pattern);
  }
  return pattern;
}
