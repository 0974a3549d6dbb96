import { PACKAGE_LIMITS, type Problem, SKILL_MD } from './types.ts';

/** Folders the Agent Skills layout defines for everything besides SKILL.md. */
const LAYOUT_DIRS = new Set(['scripts', 'references', 'assets']);
/** Top-level files people ship next to SKILL.md; harmless, so allowed. */
const TOP_LEVEL_FILES = new Set([SKILL_MD, 'LICENSE', 'LICENSE.txt', 'LICENSE.md', 'README.md']);

// C0 controls, DEL and C1 controls: never meaningful in a file name, and some terminals act on them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function problem(path: string, rule: string, message: string): Problem {
  return { path, rule, message };
}

/**
 * Checks the path rules that do not depend on the package layout: length, characters, relative
 * '/'-separated form, no '.', '..' or empty segment. Returns the first violation, or null.
 */
export function checkPathSyntax(path: string): Problem | null {
  const chars = [...path].length;
  if (chars === 0) return problem(path, 'PATH_LENGTH', 'Path is empty');
  if (chars > PACKAGE_LIMITS.pathChars) {
    return problem(path, 'PATH_LENGTH', `Path exceeds ${PACKAGE_LIMITS.pathChars} characters (${chars})`);
  }
  if (CONTROL.test(path)) return problem(path, 'PATH_CHARACTERS', 'Path contains a control character');
  if (path.includes('\\')) {
    return problem(path, 'PATH_BACKSLASH', "Path contains a backslash; use '/' as the separator");
  }
  // A drive letter ('C:') or a leading '/' would escape the package root when extracted.
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) {
    return problem(path, 'PATH_ABSOLUTE', 'Path must be relative to the package root');
  }
  const segments = path.split('/');
  if (segments.some((s) => s === '.' || s === '..')) {
    return problem(path, 'PATH_TRAVERSAL', "Path must not contain '.' or '..' segments");
  }
  if (segments.some((s) => s === '')) {
    return problem(
      path,
      'PATH_EMPTY_SEGMENT',
      "Path must not contain an empty segment ('//' or a trailing '/')",
    );
  }
  return null;
}

/**
 * Checks one package file path: {@link checkPathSyntax}, then the layout rule (top-level entries
 * other than SKILL.md, LICENSE* and README.md live in scripts/, references/ or assets/).
 * Returns the first violation, or null when the path is acceptable.
 */
export function checkPath(path: string): Problem | null {
  const syntax = checkPathSyntax(path);
  if (syntax) return syntax;
  const slash = path.indexOf('/');
  const inLayout = slash < 0 ? TOP_LEVEL_FILES.has(path) : LAYOUT_DIRS.has(path.slice(0, slash));
  if (!inLayout) {
    return problem(
      path,
      'PATH_OUTSIDE_LAYOUT',
      'Files other than SKILL.md, LICENSE, LICENSE.txt, LICENSE.md and README.md must be inside scripts/, references/ or assets/',
    );
  }
  return null;
}
