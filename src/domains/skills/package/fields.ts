import { type Problem, SKILL_MD } from './types.ts';

export const ALLOWED_FIELDS = [
  'name',
  'description',
  'license',
  'compatibility',
  'metadata',
  'allowed-tools',
];
const NAME_MAX = 64;
const DESCRIPTION_MAX = 1024;
const COMPATIBILITY_MAX = 500;

// With the failsafe schema a scalar is a string, a mapping a plain object, a sequence an array.
export function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kind(value: unknown): string {
  return Array.isArray(value) ? 'a list' : isMapping(value) ? 'a mapping' : 'an empty value';
}

function chars(value: string): number {
  return [...value].length;
}

function at(field: string, rule: string, message: string): Problem {
  return { path: `${SKILL_MD}#${field}`, rule, message };
}

function checkName(value: unknown, packageName: string): Problem[] {
  if (typeof value !== 'string')
    return [at('name', 'FIELD_TYPE', `Field 'name' must be a string, not ${kind(value)}`)];
  const out: Problem[] = [];
  const n = chars(value);
  if (n < 1 || n > NAME_MAX) {
    out.push(at('name', 'NAME_LENGTH', `Skill name must be 1-${NAME_MAX} characters (${n})`));
  }
  if (!/^[a-z0-9-]*$/.test(value)) {
    out.push(
      at(
        'name',
        'NAME_CHARACTERS',
        `Skill name '${value}' may only contain lowercase letters a-z, digits and hyphens`,
      ),
    );
  }
  if (value.startsWith('-') || value.endsWith('-')) {
    out.push(at('name', 'NAME_HYPHEN_EDGE', 'Skill name cannot start or end with a hyphen'));
  }
  if (value.includes('--')) {
    out.push(at('name', 'NAME_CONSECUTIVE_HYPHENS', 'Skill name cannot contain consecutive hyphens'));
  }
  if (value !== packageName) {
    out.push(
      at('name', 'NAME_MISMATCH', `Skill name '${value}' must match the package name '${packageName}'`),
    );
  }
  return out;
}

function checkDescription(value: unknown): Problem[] {
  if (typeof value !== 'string') {
    return [at('description', 'FIELD_TYPE', `Field 'description' must be a string, not ${kind(value)}`)];
  }
  if (value.trim() === '') return [at('description', 'DESCRIPTION_LENGTH', 'Description must not be empty')];
  const n = chars(value);
  if (n > DESCRIPTION_MAX) {
    return [
      at('description', 'DESCRIPTION_LENGTH', `Description exceeds ${DESCRIPTION_MAX} characters (${n})`),
    ];
  }
  return [];
}

function checkCompatibility(value: unknown): Problem[] {
  if (typeof value !== 'string') {
    return [at('compatibility', 'FIELD_TYPE', `Field 'compatibility' must be a string, not ${kind(value)}`)];
  }
  const n = chars(value);
  if (n < 1 || n > COMPATIBILITY_MAX) {
    return [
      at(
        'compatibility',
        'COMPATIBILITY_LENGTH',
        `Compatibility must be 1-${COMPATIBILITY_MAX} characters (${n})`,
      ),
    ];
  }
  return [];
}

function checkMetadata(value: unknown): Problem[] {
  if (!isMapping(value)) {
    return [
      at('metadata', 'METADATA_NOT_MAP', `Field 'metadata' must be a mapping of strings, not ${kind(value)}`),
    ];
  }
  return Object.entries(value)
    .filter(([, v]) => typeof v !== 'string')
    .map(([k, v]) =>
      at(`metadata.${k}`, 'METADATA_VALUE_TYPE', `Metadata value '${k}' must be a string, not ${kind(v)}`),
    );
}

function checkAllowedTools(value: unknown): Problem[] {
  if (typeof value === 'string') return [];
  if (Array.isArray(value) && value.every((item) => typeof item === 'string')) return [];
  return [at('allowed-tools', 'FIELD_TYPE', "Field 'allowed-tools' must be a string or a list of strings")];
}

/** Checks parsed frontmatter fields against the Agent Skills specification; reports every violation. */
export function checkFields(fields: Record<string, unknown>, packageName: string): Problem[] {
  const out: Problem[] = [];
  for (const key of Object.keys(fields)) {
    if (!ALLOWED_FIELDS.includes(key)) {
      out.push(
        at(key, 'FIELD_UNEXPECTED', `Unexpected field '${key}'; allowed: ${ALLOWED_FIELDS.join(', ')}`),
      );
    }
  }
  const has = (key: string) => Object.hasOwn(fields, key);
  if (has('name')) out.push(...checkName(fields.name, packageName));
  else out.push(at('name', 'NAME_MISSING', 'Missing required field: name'));
  if (has('description')) out.push(...checkDescription(fields.description));
  else out.push(at('description', 'DESCRIPTION_MISSING', 'Missing required field: description'));
  if (has('license') && typeof fields.license !== 'string') {
    out.push(at('license', 'FIELD_TYPE', `Field 'license' must be a string, not ${kind(fields.license)}`));
  }
  if (has('compatibility')) out.push(...checkCompatibility(fields.compatibility));
  if (has('metadata')) out.push(...checkMetadata(fields.metadata));
  if (has('allowed-tools')) out.push(...checkAllowedTools(fields['allowed-tools']));
  return out;
}
