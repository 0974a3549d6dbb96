import { SKILL_LIMITS } from '../limits.ts';

/** One file of a skill package: a relative '/'-separated path and its bytes. */
export interface PackageFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * One violation. `path` is the file path ('SKILL.md', 'scripts/x.sh'), `SKILL.md#<field>` for a
 * frontmatter field, or '' for the package (or archive) as a whole. `rule` is a stable code.
 */
export interface Problem {
  path: string;
  rule: string;
  message: string;
}

/** Limits every package obeys, whether uploaded as files or as a zip. */
export const PACKAGE_LIMITS = {
  fileBytes: SKILL_LIMITS.package.fileBytes,
  packageBytes: SKILL_LIMITS.package.packageBytes,
  files: SKILL_LIMITS.package.files,
  pathChars: SKILL_LIMITS.list.pathChars,
  importBytes: SKILL_LIMITS.package.importBytes,
} as const;

export const SKILL_MD = 'SKILL.md';

/** Orders problems by path, then rule, so reports are stable and comparable. */
export function sortProblems(problems: Problem[]): Problem[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return problems.sort((a, b) => cmp(a.path, b.path) || cmp(a.rule, b.rule));
}
