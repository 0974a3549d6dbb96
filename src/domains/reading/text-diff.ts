import { createTwoFilesPatch } from 'diff';
import { LIMITS } from '../../kernel/limits.ts';

export interface TextDiff {
  changed: boolean;
  /** Unified diff of the two texts (line based, two lines of context); null when too costly to compute. */
  unified: string | null;
  added_lines: number;
  removed_lines: number;
  /** True when the unified diff was cut at the published limit. */
  truncated: boolean;
}

// Diffing runs on the request thread: the time cap keeps a hostile pair of texts from stalling it.
const DIFF_TIMEOUT_MS = 500;

/** A line diff of two stored texts, bounded in time and in size. */
export function diffTexts(oldName: string, newName: string, oldText: string, newText: string): TextDiff {
  if (oldText === newText) {
    return { changed: false, unified: '', added_lines: 0, removed_lines: 0, truncated: false };
  }
  const patch = createTwoFilesPatch(oldName, newName, oldText, newText, undefined, undefined, {
    context: 2,
    timeout: DIFF_TIMEOUT_MS,
  });
  if (patch === undefined) {
    return { changed: true, unified: null, added_lines: 0, removed_lines: 0, truncated: false };
  }
  let added = 0;
  let removed = 0;
  const lines = patch.split('\n');
  // Count from the first hunk: the file header lines also start with + and -.
  for (const line of lines.slice(
    Math.max(
      0,
      lines.findIndex((l) => l.startsWith('@@')),
    ),
  )) {
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  const max = LIMITS.read.diffChars;
  return {
    changed: true,
    unified: patch.length > max ? patch.slice(0, max) : patch,
    added_lines: added,
    removed_lines: removed,
    truncated: patch.length > max,
  };
}
