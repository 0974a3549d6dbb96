/**
 * A line diff of two stored texts, bounded in time and in size. Runs in the parser pool: diffing
 * hostile texts can be slow, and the time cap plus the job's own timeout keep it contained.
 */
import { createTwoFilesPatch } from 'diff';
import type { TextDiff } from './types.ts';

/** Past this the diff gives up and `unified` is null; well inside the job's timeout. */
export const DIFF_TIMEOUT_MS = 2_000;
/** The unified diff is cut here (diff_since; reading publishes it with its other bounds). */
export const DIFF_MAX_CHARS = 60_000;

/** A unified diff (two lines of context) of two texts, with added/removed line counts, cut at DIFF_MAX_CHARS. */
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
  const firstHunk = Math.max(
    0,
    lines.findIndex((line) => line.startsWith('@@')),
  );
  for (const line of lines.slice(firstHunk)) {
    if (line.startsWith('+')) added++;
    else if (line.startsWith('-')) removed++;
  }
  const max = DIFF_MAX_CHARS;
  return {
    changed: true,
    unified: patch.length > max ? cutAt(patch, max) : patch,
    added_lines: added,
    removed_lines: removed,
    truncated: patch.length > max,
  };
}

/** The first `max` code units of `text`, one fewer when that would split a surrogate pair. */
function cutAt(text: string, max: number): string {
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}
