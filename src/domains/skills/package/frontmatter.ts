import { isMap, isScalar, parseDocument, visit } from 'yaml';
import { type Problem, SKILL_MD } from './types.ts';

export interface Frontmatter {
  fields: Record<string, unknown> | null;
  body: string;
  problems: Problem[];
}

const FENCE = /^---[ \t]*$/;

function fail(rule: string, message: string, body: string): Frontmatter {
  return { fields: null, body, problems: [{ path: SKILL_MD, rule, message }] };
}

/**
 * Splits SKILL.md into its YAML frontmatter and Markdown body, and parses the frontmatter.
 * The YAML failsafe schema (the default, what validation reads) keeps every scalar a string (no
 * `yes` → true, no `1.0` → 1); `core` reads it as YAML 1.2 readers do, for the frontmatter the
 * Skills extension hands clients to compare with their own parse. Duplicate keys and aliases are
 * refused (aliases are the billion-laughs vector and no field needs them). `fields` is null
 * whenever `problems` is non-empty.
 */
export function parseFrontmatter(skillMd: string, schema: 'failsafe' | 'core' = 'failsafe'): Frontmatter {
  const text = skillMd.startsWith('\uFEFF') ? skillMd.slice(1) : skillMd;
  const lines = text.split(/\r?\n/);
  if (!FENCE.test(lines[0] ?? '')) {
    return fail(
      'FRONTMATTER_MISSING',
      "SKILL.md must start with YAML frontmatter opened by a '---' line",
      text,
    );
  }
  const close = lines.findIndex((line, i) => i > 0 && FENCE.test(line));
  if (close < 0) {
    return fail('FRONTMATTER_UNCLOSED', "SKILL.md frontmatter is not closed by a '---' line", text);
  }
  const yamlText = lines.slice(1, close).join('\n');
  const body = lines.slice(close + 1).join('\n');

  const doc = parseDocument(yamlText, { schema, uniqueKeys: true, prettyErrors: false });
  const error = doc.errors[0];
  if (error) return fail('FRONTMATTER_INVALID_YAML', `Invalid YAML in frontmatter: ${error.message}`, body);
  let alias = false;
  visit(doc, {
    Alias() {
      alias = true;
      return visit.BREAK;
    },
  });
  if (alias)
    return fail('FRONTMATTER_INVALID_YAML', 'Invalid YAML in frontmatter: aliases are not allowed', body);
  if (!isMap(doc.contents)) {
    return fail('FRONTMATTER_NOT_MAPPING', 'SKILL.md frontmatter must be a YAML mapping of fields', body);
  }
  // A collection used as a key would be stringified by toJS; no field is named that way.
  if (doc.contents.items.some((pair) => !isScalar(pair.key))) {
    return fail('FRONTMATTER_INVALID_YAML', 'Invalid YAML in frontmatter: keys must be plain strings', body);
  }
  const fields = doc.toJS({ maxAliasCount: 0 }) as Record<string, unknown>;
  return { fields, body, problems: [] };
}
