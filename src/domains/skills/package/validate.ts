import { checkFields, isMapping } from './fields.ts';
import { parseFrontmatter } from './frontmatter.ts';
import { checkPath } from './paths.ts';
import { decodeUtf8, isText } from './text.ts';
import { PACKAGE_LIMITS, type PackageFile, type Problem, SKILL_MD, sortProblems } from './types.ts';

function checkFiles(files: PackageFile[]): Problem[] {
  const out: Problem[] = [];
  const seen = new Set<string>();
  const duplicated = new Set<string>();
  let total = 0;
  for (const file of files) {
    const pathProblem = checkPath(file.path);
    if (pathProblem && !seen.has(file.path)) out.push(pathProblem);
    if (seen.has(file.path)) duplicated.add(file.path);
    seen.add(file.path);
    total += file.bytes.length;
    if (file.bytes.length > PACKAGE_LIMITS.fileBytes) {
      out.push({
        path: file.path,
        rule: 'FILE_TOO_LARGE',
        message: `File is ${file.bytes.length} bytes; the limit is ${PACKAGE_LIMITS.fileBytes}`,
      });
    }
  }
  for (const path of duplicated) {
    out.push({ path, rule: 'PATH_DUPLICATE', message: 'The package contains this path more than once' });
  }
  if (files.length > PACKAGE_LIMITS.files) {
    out.push({
      path: '',
      rule: 'TOO_MANY_FILES',
      message: `Package has ${files.length} files; the limit is ${PACKAGE_LIMITS.files}`,
    });
  }
  if (total > PACKAGE_LIMITS.packageBytes) {
    out.push({
      path: '',
      rule: 'PACKAGE_TOO_LARGE',
      message: `Package is ${total} bytes; the limit is ${PACKAGE_LIMITS.packageBytes}`,
    });
  }
  return out;
}

function checkSkillMd(name: string, skillMd: PackageFile | undefined): Problem[] {
  if (!skillMd) {
    return [{ path: SKILL_MD, rule: 'SKILL_MD_MISSING', message: 'The package root must contain SKILL.md' }];
  }
  if (!isText(skillMd.bytes)) {
    return [
      { path: SKILL_MD, rule: 'SKILL_MD_NOT_TEXT', message: 'SKILL.md must be UTF-8 text without NUL bytes' },
    ];
  }
  const { fields, problems } = parseFrontmatter(decodeUtf8(skillMd.bytes) ?? '');
  return fields ? checkFields(fields, name) : problems;
}

/**
 * Validates a skill package given as files, `name` being the package (folder) name that the
 * frontmatter `name` must equal. Reports every violation, sorted by path then rule; empty = valid.
 */
export function validatePackage(name: string, files: PackageFile[]): Problem[] {
  const skillMd = files.find((f) => f.path === SKILL_MD);
  return sortProblems([...checkFiles(files), ...checkSkillMd(name, skillMd)]);
}

/** What a skill says about itself, from SKILL.md's frontmatter. */
export interface SkillMeta {
  name: string;
  description: string;
  license: string | null;
  compatibility: string | null;
  metadata: Record<string, string>;
  allowedTools: string | null;
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/**
 * Reads the metadata of a package that {@link validatePackage} accepted. Returns null when SKILL.md
 * is absent or its frontmatter lacks a string name and description; other malformed optional
 * fields are dropped rather than trusted. A list of allowed tools is joined with spaces, the
 * specification's string form.
 */
export function readMeta(files: PackageFile[]): SkillMeta | null {
  const skillMd = files.find((f) => f.path === SKILL_MD);
  const text = skillMd && isText(skillMd.bytes) ? decodeUtf8(skillMd.bytes) : null;
  if (text === null) return null;
  const { fields } = parseFrontmatter(text);
  const name = str(fields?.name);
  const description = str(fields?.description);
  if (!fields || name === null || description === null) return null;
  // fromEntries defines own properties, so a key named '__proto__' stays an ordinary key.
  const metadata: Record<string, string> = isMapping(fields.metadata)
    ? Object.fromEntries(
        Object.entries(fields.metadata).filter((e): e is [string, string] => typeof e[1] === 'string'),
      )
    : {};
  const tools = fields['allowed-tools'];
  const allowedTools = Array.isArray(tools)
    ? tools.filter((t): t is string => typeof t === 'string').join(' ')
    : str(tools);
  return {
    name,
    description,
    license: str(fields.license),
    compatibility: str(fields.compatibility),
    metadata,
    allowedTools,
  };
}
