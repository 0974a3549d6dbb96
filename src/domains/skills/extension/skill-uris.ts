import { DomainError } from '../../../kernel/errors.ts';
import { parseContext, type SkillContext } from '../context.ts';
import { SKILL_LIMITS } from '../limits.ts';

/**
 * The `skill://` URIs of the Skills extension (docs/skills.md, "The MCP Skills extension").
 * A URI names everything a read is checked against, so it can be handed on and read later
 * without Cairn-specific arguments: the context it is read under, the immutable version, and
 * the file. `<skill-path>` is `<context>/<version_id>/<name>`, whose last segment is the
 * skill's name as the extension requires:
 *
 *   skill://own/skv_…/<name>/SKILL.md                      yours, or granted to you
 *   skill://campaign/cmp_…/skv_…/<name>/SKILL.md           a campaign's accepted library
 *   skill://task/task_…/skv_…/<name>/SKILL.md              attached to a task whose lease you hold
 *   skill://arena-run/arun_…/skv_…/<name>/SKILL.md         shared to a run you started
 *   skill://arena-review/pub_…/skv_…/<name>/SKILL.md       those of a run you review
 *
 * The first segment (the URI's authority) is a lowercase word, a valid reg-name.
 */

export const SKILL_SCHEME = 'skill://';
export const SKILL_MD = 'SKILL.md';

const SEGMENT: Record<SkillContext['scope'], string> = {
  OWN: 'own',
  CAMPAIGN: 'campaign',
  TASK: 'task',
  ARENA_RUN: 'arena-run',
  ARENA_REVIEW: 'arena-review',
};
const SCOPE_OF = new Map(Object.entries(SEGMENT).map(([scope, word]) => [word, scope]));
const ID_KEY: Record<Exclude<SkillContext['scope'], 'OWN'>, string> = {
  CAMPAIGN: 'campaign_id',
  TASK: 'task_id',
  ARENA_RUN: 'run_id',
  ARENA_REVIEW: 'publication_id',
};
const VERSION_ID = /^skv_[0-9A-Z]{26}$/;
/** A SKILL.md URI is at most this long; the longest file path adds pathChars to it. */
const MAX_URI_CHARS = 2_000;

export interface SkillAddress {
  context: SkillContext;
  versionId: string;
  name: string;
  /** The file's path inside the package, `SKILL.md` for the skill itself. */
  path: string;
}

/** The skill's directory: `skill://<context>/<version_id>/<name>`, no trailing slash. */
export function skillRoot(context: SkillContext, versionId: string, name: string): string {
  const where =
    context.scope === 'OWN' ? [] : [(context as Record<string, string>)[ID_KEY[context.scope]] as string];
  return `${SKILL_SCHEME}${[SEGMENT[context.scope], ...where, versionId, name].join('/')}`;
}

/** A file's URI under the skill's directory, each path segment percent-encoded. */
export function fileUri(root: string, path: string): string {
  return `${root}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** What a `skill://` URI names, or null when it is not one of Cairn's shapes. */
export function parseSkillUri(uri: string): SkillAddress | null {
  if (!uri.startsWith(SKILL_SCHEME) || uri.length > MAX_URI_CHARS + SKILL_LIMITS.list.pathChars) return null;
  if (/[?#]/.test(uri)) return null;
  const segments = uri.slice(SKILL_SCHEME.length).split('/');
  const scope = SCOPE_OF.get(segments.shift() ?? '') as SkillContext['scope'] | undefined;
  if (!scope) return null;
  const raw: Record<string, string> = { scope };
  if (scope !== 'OWN') raw[ID_KEY[scope]] = segments.shift() ?? '';
  const [versionId = '', name = '', ...file] = segments;
  if (!VERSION_ID.test(versionId) || name === '' || file.length === 0) return null;
  let context: SkillContext;
  let path: string;
  try {
    context = parseContext(JSON.stringify(raw));
    path = file.map((segment) => decodeURIComponent(segment)).join('/');
  } catch (error) {
    if (error instanceof DomainError || error instanceof URIError) return null;
    throw error;
  }
  if (path === '' || path.length > SKILL_LIMITS.list.pathChars) return null;
  return { context, versionId, name, path };
}
