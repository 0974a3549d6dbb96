import { Document, isMap, parseDocument } from 'yaml';

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
 * SKILL.md with `field` set to `value` in its frontmatter. A file without readable frontmatter
 * gets a fresh one above its text (the validator will say if anything else is wrong).
 */
export function setFrontmatterField(md: string, name: string, field: string, value: string): string {
  const match = FENCE.exec(md);
  const doc = match ? parseDocument(match[1] ?? '', { uniqueKeys: true }) : null;
  if (!match || !doc || doc.errors.length > 0 || !isMap(doc.contents)) {
    const rest = match ? md.slice(match[0].length) : md;
    const fresh = new Document({ name, [field]: value });
    return `---\n${fresh.toString().trimEnd()}\n---\n${rest.startsWith('\n') ? '' : '\n'}${rest}`;
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
