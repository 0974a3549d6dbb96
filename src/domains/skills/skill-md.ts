import { Document, isMap, parseDocument } from 'yaml';
import { DomainError } from '../../kernel/errors.ts';

/**
 * Edits of a draft's SKILL.md that keep what the author wrote: a frontmatter field is set in the
 * YAML document (comments, order and other fields stay), the body is replaced below it.
 */

const FENCE = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/;

/** A new SKILL.md: the frontmatter with name and description, and a heading to start from. */
export function newSkillMd(name: string, description: string, body?: string): string {
  const doc = new Document({ name, description });
  return `---\n${doc.toString().trimEnd()}\n---\n\n${body ?? `# ${name}\n`}`;
}

/**
 * SKILL.md with `field` set to `value` in its frontmatter, read as the validator reads it
 * (failsafe schema: every value stays the string the author wrote). A file without frontmatter
 * gets one above its text; frontmatter that is there but broken is refused rather than rebuilt,
 * so nothing the author wrote is lost.
 */
export function setFrontmatterField(md: string, name: string, field: string, value: string): string {
  const match = FENCE.exec(md);
  if (!match) {
    const fresh = new Document({ name, [field]: value });
    return `---\n${fresh.toString().trimEnd()}\n---\n${md.startsWith('\n') ? '' : '\n'}${md}`;
  }
  const doc = parseDocument(match[1] ?? '', { schema: 'failsafe', uniqueKeys: true });
  if (doc.errors.length > 0 || !isMap(doc.contents)) {
    throw new DomainError(
      'VALIDATION_FAILED',
      `SKILL.md's frontmatter is not a readable YAML mapping, so ${field} was not set; nothing was changed.`,
      {
        detail: [{ loc: ['SKILL.md'], msg: doc.errors[0]?.message ?? 'not a mapping', type: 'frontmatter' }],
      },
      {
        next: 'Fix SKILL.md with skill_draft_file_put (skill_draft_validate names the problem), then try again.',
      },
    );
  }
  doc.set(field, value);
  return `---\n${doc.toString().trimEnd()}\n---\n${md.slice(match[0].length)}`;
}

/** SKILL.md with its body (the instructions below the frontmatter) replaced. */
export function setBody(md: string, name: string, body: string): string {
  const match = FENCE.exec(md);
  if (!match) return newSkillMd(name, '', body);
  return `${match[0].endsWith('\n') ? match[0] : `${match[0]}\n`}\n${body}`;
}

/** The description in SKILL.md's frontmatter, for listings; '' when there is none to read. */
export function descriptionOf(md: string): string {
  const match = FENCE.exec(md);
  if (!match) return '';
  const doc = parseDocument(match[1] ?? '', { schema: 'failsafe' });
  if (doc.errors.length > 0 || !isMap(doc.contents)) return '';
  const value = doc.get('description');
  return typeof value === 'string' ? value.slice(0, 1024) : '';
}
