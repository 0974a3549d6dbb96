/**
 * The official STIX 2.1 JSON schemas (OASIS cti-stix2-json-schemas, copied unchanged under
 * test/fixtures/schemas/stix so a clean clone needs no ../shared) loaded into one ajv 2020
 * instance. Every file is added by its `$id` (the raw.githubusercontent URL), so the relative
 * `$ref`s between them resolve against those ids without any network.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

export const STIX_SCHEMA_DIR = path.resolve(import.meta.dirname, '../fixtures/schemas/stix/schemas');

const BASE = 'http://raw.githubusercontent.com/oasis-open/cti-stix2-json-schemas/stix2.1/schemas/';
const FOLDERS = ['common', 'sdos', 'sros', 'observables'] as const;

function loadAjv() {
  // unicodeRegExp: false because the schemas' patterns use escapes (`\-`, `\$`) that the `u` flag rejects.
  const ajv = new Ajv2020.default({ strict: false, unicodeRegExp: false, allErrors: true });
  addFormats.default(ajv);
  // ajv-formats has no idn-hostname; only domain-name and email-addr use it, which no export holds.
  ajv.addFormat('idn-hostname', true);
  const typeToId = new Map<string, string>();
  for (const folder of FOLDERS) {
    for (const file of readdirSync(path.join(STIX_SCHEMA_DIR, folder)).sort()) {
      if (!file.endsWith('.json')) continue;
      const schema = JSON.parse(readFileSync(path.join(STIX_SCHEMA_DIR, folder, file), 'utf8'));
      if (schema.$id !== `${BASE}${folder}/${file}`) throw new Error(`unexpected $id in ${folder}/${file}`);
      ajv.addSchema(schema);
      // Object schemas are named after the STIX type they describe; common/ also holds helpers.
      if (folder !== 'common' || file === 'marking-definition.json' || file === 'bundle.json') {
        typeToId.set(file.replace(/\.json$/, ''), schema.$id);
      }
    }
  }
  return { ajv, typeToId };
}

let loaded: ReturnType<typeof loadAjv> | undefined;

/**
 * Types the official bundle.json cannot hold: it lists no note or opinion schema, and such an
 * object matches both core.json and cyber-observable-core.json in its custom-object branch, whose
 * `oneOf` then fails. Validate them with their own schemas, the envelope without them.
 */
export const OMITTED_BY_BUNDLE_SCHEMA = new Set(['note', 'opinion']);

export interface SchemaVerdict {
  ok: boolean;
  /** ajv's errors as `instancePath keyword message`, for assertion messages. */
  errors: string[];
}

/** Validates one value against the schema of a STIX type (`note`, `software`, `bundle`, ...). */
export function validateStix(type: string, value: unknown): SchemaVerdict {
  loaded ??= loadAjv();
  const id = loaded.typeToId.get(type);
  if (!id) throw new Error(`no STIX 2.1 schema for type ${type}`);
  const validate = loaded.ajv.getSchema(id);
  if (!validate) throw new Error(`schema ${id} did not compile`);
  const ok = validate(value) as boolean;
  const errors = (validate.errors ?? []).map((e) => `${e.instancePath} ${e.keyword} ${e.message ?? ''}`);
  return { ok, errors };
}

/** The STIX types the official schemas cover (the bundle schema itself omits note and opinion). */
export function stixSchemaTypes(): string[] {
  loaded ??= loadAjv();
  return [...loaded.typeToId.keys()].sort();
}
