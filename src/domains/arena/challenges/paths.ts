/**
 * Package paths, held to the skills package rules: relative, '/'-separated, no '.' or '..'
 * segments, no empty segments, no backslashes or control characters, at most 240 characters.
 * A bad path is refused, never repaired.
 */
import { CHALLENGE_LIMITS } from './schema.ts';
import type { ChallengeProblem } from './types.ts';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The first rule `path` breaks, or null when it is an acceptable package path. */
export function checkPackagePath(path: string, where = path): ChallengeProblem | null {
  const problem = (rule: string, message: string) => ({ path: where, rule, message });
  const chars = [...path].length;
  if (chars === 0) return problem('PATH_LENGTH', 'Path is empty');
  if (chars > CHALLENGE_LIMITS.pathChars) {
    return problem('PATH_LENGTH', `Path exceeds ${CHALLENGE_LIMITS.pathChars} characters (${chars})`);
  }
  if (path.includes('\\')) return problem('PATH_BACKSLASH', "Path contains a backslash; use '/'");
  if (CONTROL.test(path)) return problem('PATH_CHARACTERS', 'Path contains control characters');
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
    return problem('PATH_ABSOLUTE', 'Path must be relative to the challenge folder');
  }
  const segments = path.split('/');
  if (segments.some((segment) => segment === '.' || segment === '..')) {
    return problem('PATH_TRAVERSAL', "Path must not contain '.' or '..' segments");
  }
  if (segments.some((segment) => segment === '')) {
    return problem('PATH_EMPTY_SEGMENT', "Path must not contain an empty segment ('//' or a trailing '/')");
  }
  return null;
}
