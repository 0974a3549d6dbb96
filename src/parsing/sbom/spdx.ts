/** SPDX JSON 2.2 / 2.3: our own validator over the hand-written rules, and the packages as components. */
import { hashAlg, pointer, quote } from './components.ts';
import { type Rule, SPDX_RULES } from './spdx-rules.ts';
import { MAX_SBOM_ERRORS, type SbomComponent, type SbomError } from './types.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** ajv's names for the JSON types, so messages read the same whichever validator refused. */
function typeOk(rule: Rule, value: unknown): boolean {
  switch (rule.kind) {
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'array':
      return Array.isArray(value);
    case 'object':
      return isObject(value);
  }
}

function listEnum(values: readonly string[]): string {
  const shown = values.slice(0, 12).join(', ');
  return values.length > 12 ? `${shown}, … (${values.length} values)` : shown;
}

/**
 * Checks `value` against `rule` like a draft-07 validator with allErrors, but stops once
 * MAX_SBOM_ERRORS are found. Paths follow ajv's instancePath: a missing or unknown property is
 * reported at the object that should (not) hold it, the property named in the message.
 */
function check(rule: Rule, value: unknown, path: string[], errors: SbomError[]): void {
  if (errors.length >= MAX_SBOM_ERRORS) return;
  const at = pointer(path);
  const add = (message: string) => {
    if (errors.length < MAX_SBOM_ERRORS) errors.push({ path: at, message });
  };
  const typed = typeOk(rule, value);
  if (!typed) add(`type: must be ${rule.kind}`);
  // enum is a keyword of its own in JSON Schema: a value of the wrong type fails it too.
  if (rule.kind === 'string' && rule.enum && !rule.enum.includes(value as string)) {
    const shown = typeof value === 'string' ? quote(value) : 'the value';
    add(`enum: ${shown} is not one of ${listEnum(rule.enum)}`);
  }
  // The other keywords only constrain values of their own type (arrays, objects).
  if (!typed) return;
  if (rule.kind === 'array') {
    const items = value as unknown[];
    if (rule.minItems !== undefined && items.length < rule.minItems) {
      add(`minItems: must have at least ${rule.minItems} item${rule.minItems === 1 ? '' : 's'}`);
    }
    items.forEach((item, i) => {
      check(rule.items, item, [...path, String(i)], errors);
    });
  } else if (rule.kind === 'object') {
    const object = value as Json;
    for (const name of rule.required) {
      if (!Object.hasOwn(object, name)) add(`required: missing property ${quote(name)}`);
    }
    for (const [name, child] of Object.entries(object)) {
      const childRule = Object.hasOwn(rule.properties, name) ? rule.properties[name] : undefined;
      if (childRule) check(childRule, child, [...path, name], errors);
      else if (rule.closed) add(`additionalProperties: unknown property ${quote(name)}`);
    }
  }
}

/** Errors of an SPDX document of a supported version (`'2.2'` or `'2.3'`), at most MAX_SBOM_ERRORS. */
export function validateSpdx(doc: unknown, version: string): SbomError[] {
  const rule = SPDX_RULES[version];
  if (!rule) throw new Error(`no SPDX rules for ${version}`);
  const errors: SbomError[] = [];
  check(rule, doc, [], errors);
  return errors;
}

/** Licence fields that say "nothing known" carry no searchable information. */
const NO_LICENCE = new Set(['NOASSERTION', 'NONE']);

/** Packages in document order; call only on a document that validated. */
export function spdxComponents(doc: Json): SbomComponent[] {
  const packages = Array.isArray(doc.packages) ? (doc.packages as Json[]) : [];
  return packages.map((pkg) => {
    const refs = Array.isArray(pkg.externalRefs) ? (pkg.externalRefs as Json[]) : [];
    const purl = refs.find((ref) => ref.referenceType === 'purl');
    const licenses: string[] = [];
    for (const field of [pkg.licenseDeclared, pkg.licenseConcluded]) {
      if (typeof field === 'string' && !NO_LICENCE.has(field) && !licenses.includes(field))
        licenses.push(field);
    }
    const checksums = Array.isArray(pkg.checksums) ? (pkg.checksums as Json[]) : [];
    return {
      name: pkg.name as string,
      version: typeof pkg.versionInfo === 'string' ? pkg.versionInfo : null,
      purl: purl ? (purl.referenceLocator as string) : null,
      licenses,
      hashes: checksums.map((c) => ({
        alg: hashAlg(c.algorithm as string),
        value: c.checksumValue as string,
      })),
    };
  });
}
