import type { Caller } from './caller.ts';

/**
 * The skills an area serves through MCP's Skills extension (`io.modelcontextprotocol/skills`,
 * issue 42 item 5): `skills/list`, `skills/get` and `resources/read` of the skills' files. The
 * transport knows no skill's meaning: it asks the catalog, which decides in its own SQL what the
 * caller may read. At most one area offers one; without it the extension is not declared.
 */
export interface SkillCatalog {
  /** One page of the skills the caller may read, each entry whole (never split across pages). */
  list(
    caller: Caller,
    cursor: string | undefined,
  ): Promise<{ skills: SkillEntry[]; nextCursor: string | null }>;
  /**
   * The entry of the skill whose SKILL.md is `uri`; null when the URI names no skill the caller
   * may read (the same for a stranger's skill and one that does not exist).
   */
  get(uri: string, caller: Caller): Promise<SkillEntry | null>;
  /** Whether `uri` is one this catalog answers (its scheme and shape), before asking for it. */
  owns(uri: string): boolean;
  /** One file of a skill, whole, as resources/read answers it; null as for `get`. */
  read(uri: string, caller: Caller): Promise<SkillFileContent | null>;
}

/** A skill entry (the extension's `Skill`): its SKILL.md URI, frontmatter and complete file list. */
export interface SkillEntry {
  uri: string;
  /** The SKILL.md frontmatter as a JSON object, every field the author wrote. */
  frontmatter: { name: string; description: string; [key: string]: unknown };
  /** Every file, SKILL.md included, with `sha256:<hex>` of its raw bytes and their length. */
  resources: Array<{ uri: string; digest: string; size: number }>;
}

/** A file's content: text when it is UTF-8, else its bytes in base64. */
export type SkillFileContent =
  | { uri: string; mimeType: string; text: string }
  | { uri: string; mimeType: string; blob: string };

/** The extension's identifier, as capabilities name it. */
export const SKILLS_EXTENSION = 'io.modelcontextprotocol/skills';
