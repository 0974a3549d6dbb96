/**
 * CycloneDX JSON 1.4-1.6: validated against the official schemas that @cyclonedx/cyclonedx-library
 * ships (res/schema), with ajv set up as that library's own JsonValidator sets it up. The library's
 * validator is asynchronous and reads the schemas on first use; this module runs synchronously in a
 * parser worker, so it reads the same files once and keeps one compiled validator per version.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { hashAlg, pointer, quote } from './components.ts';
import { MAX_SBOM_ERRORS, type SbomComponent, type SbomError } from './types.ts';

type Json = Record<string, unknown>;

const require = createRequire(import.meta.url);
const SCHEMA_DIR = path.join(
  path.dirname(require.resolve('@cyclonedx/cyclonedx-library/package.json')),
  'res',
  'schema',
);
/** ajv-formats-draft2019 ships no types; only its `idn-email` format is used, as by the library. */
const addDraft2019Formats = require('ajv-formats-draft2019') as (
  ajv: Ajv,
  options: { formats: string[] },
) => Ajv;

/**
 * Where each sub-schema sits (`bom-1.6.SNAPSHOT.schema.json#/definitions/component`). ajv's own
 * schemaPath restarts at every $ref target, so refusals name the rule by the object ajv reports
 * (`parentSchema`, with verbose on) instead.
 */
const schemaLocation = new WeakMap<object, string>();

function readSchema(file: string): Json {
  const schema = JSON.parse(readFileSync(path.join(SCHEMA_DIR, file), 'utf8')) as Json;
  const stack: Array<[unknown, string[]]> = [[schema, []]];
  while (stack.length > 0) {
    const [node, at] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    schemaLocation.set(node, `${file}#${pointer(at)}`);
    for (const [key, child] of Object.entries(node)) stack.push([child, [...at, key]]);
  }
  return schema;
}

let ajv: Ajv | null = null;
const compiled = new Map<string, ValidateFunction>();

/** The bom schemas $ref these two by URLs relative to their $id; no schema is ever fetched. */
function makeAjv(): Ajv {
  const instance = new Ajv({
    // allErrors stays off: with it, ajv's work and error list grow with hostile input.
    allErrors: false,
    verbose: true,
    useDefaults: false,
    strict: false,
    strictSchema: false,
    addUsedSchema: false,
    loadSchema: (uri: string) => {
      throw new Error(`remote schemas are disabled: ${uri}`);
    },
  });
  instance.addSchema(
    readSchema('spdx.SNAPSHOT.schema.json'),
    'http://cyclonedx.org/schema/spdx.SNAPSHOT.schema.json',
  );
  instance.addSchema(
    readSchema('jsf-0.82.SNAPSHOT.schema.json'),
    'http://cyclonedx.org/schema/jsf-0.82.SNAPSHOT.schema.json',
  );
  // ajv-formats is CommonJS; its plugin is the module's default export.
  addFormats.default(instance);
  addDraft2019Formats(instance, { formats: ['idn-email'] });
  instance.addFormat('iri-reference', true);
  return instance;
}

function validatorFor(version: string): ValidateFunction {
  let validate = compiled.get(version);
  if (!validate) {
    ajv ??= makeAjv();
    validate = ajv.compile(readSchema(`bom-${version}.SNAPSHOT.schema.json`));
    compiled.set(version, validate);
  }
  return validate;
}

/** The detail ajv keeps in params, which its own message leaves out. */
function detail(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties' && typeof p.additionalProperty === 'string') {
    return ` (${quote(p.additionalProperty)})`;
  }
  if (e.keyword === 'enum' && Array.isArray(p.allowedValues)) {
    const values = p.allowedValues.map(String);
    return `: ${values.slice(0, 12).join(', ')}${values.length > 12 ? ', …' : ''}`;
  }
  return '';
}

function ruleAt(e: ErrorObject): string {
  const at = e.parentSchema ? schemaLocation.get(e.parentSchema) : undefined;
  return at ? `${at}/${e.keyword}` : e.schemaPath;
}

/** Errors against the official schema of `version` (one of 1.4, 1.5, 1.6). */
export function validateCycloneDx(doc: unknown, version: string): SbomError[] {
  const validate = validatorFor(version);
  if (validate(doc)) return [];
  return (validate.errors ?? []).slice(0, MAX_SBOM_ERRORS).map((e) => ({
    path: e.instancePath,
    message: `${e.keyword}: ${e.message ?? 'invalid'}${detail(e)} (schema ${ruleAt(e)})`,
  }));
}

const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);
const children = (node: Json): Json[] =>
  Array.isArray(node.components) ? (node.components as unknown[]).filter(isObject) : [];

/** Components at any nesting level, counted before validation so a flood is refused cheaply. */
export function countCycloneDxComponents(doc: Json): number {
  let count = 0;
  const stack = [doc];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const list = children(node);
    count += list.length;
    stack.push(...list);
  }
  return count;
}

function licenses(component: Json): string[] {
  const found: string[] = [];
  for (const entry of Array.isArray(component.licenses) ? (component.licenses as Json[]) : []) {
    const license = isObject(entry.license) ? entry.license : null;
    const value = typeof entry.expression === 'string' ? entry.expression : (license?.id ?? license?.name);
    if (typeof value === 'string' && !found.includes(value)) found.push(value);
  }
  return found;
}

/** Components (nested ones after their parent) in document order; call only on a valid document. */
export function cycloneDxComponents(doc: Json): SbomComponent[] {
  const out: SbomComponent[] = [];
  const visit = (node: Json) => {
    for (const c of children(node)) {
      const hashes = Array.isArray(c.hashes) ? (c.hashes as Json[]) : [];
      out.push({
        name: c.name as string,
        version: typeof c.version === 'string' ? c.version : null,
        purl: typeof c.purl === 'string' ? c.purl : null,
        licenses: licenses(c),
        hashes: hashes.map((h) => ({ alg: hashAlg(h.alg as string), value: h.content as string })),
      });
      visit(c);
    }
  };
  visit(doc);
  return out;
}

/** The document's subject (metadata.component) names it, when present. */
export function cycloneDxName(doc: Json): string | null {
  const metadata = isObject(doc.metadata) ? doc.metadata : null;
  const subject = metadata && isObject(metadata.component) ? metadata.component : null;
  return subject && typeof subject.name === 'string' ? subject.name : null;
}
