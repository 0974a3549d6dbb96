/**
 * The official CycloneDX JSON schemas that @cyclonedx/cyclonedx-library ships (res/schema), compiled
 * with ajv set up as that library's own JsonValidator sets it up. The library's validator is
 * asynchronous and reads the schemas on first use; SBOM checks run synchronously in a parser
 * worker, so this reads the same files once and keeps one compiled validator per version.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import { pointer } from './components.ts';

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
    const record = node as Json;
    if (!Array.isArray(node) && record.uniqueItems === true) {
      delete record.uniqueItems;
      record[UNIQUE] = true;
    }
    for (const [key, child] of Object.entries(node)) stack.push([child, [...at, key]]);
  }
  return schema;
}

/**
 * ajv checks uniqueItems of objects by comparing every pair: on 50,000 components that is minutes
 * of work a hostile file could ask for. The schemas' uniqueItems are swapped for this keyword,
 * which finds the same duplicates (deep equality, key order ignored) in one pass by digest.
 */
const UNIQUE = 'cairnUniqueItems';

/**
 * A key equal for values JSON Schema calls equal: scalars as JSON, containers as a SHA-256 over
 * their children's keys (object keys sorted). Memoised per object, so nested uniqueItems arrays
 * cost one pass over the document in all, not one per nesting level.
 */
const digests = new WeakMap<object, string>();
function jsonDigest(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  const known = digests.get(value);
  if (known) return known;
  const hash = createHash('sha256');
  if (Array.isArray(value)) {
    hash.update('[');
    for (const item of value) hash.update(`${jsonDigest(item)},`);
  } else {
    hash.update('{');
    const record = value as Json;
    for (const key of Object.keys(record).sort())
      hash.update(`${JSON.stringify(key)}:${jsonDigest(record[key])},`);
  }
  // '#' cannot start a JSON scalar, so a digest never equals a scalar's key.
  const digest = `#${hash.digest('base64')}`;
  digests.set(value, digest);
  return digest;
}

const uniqueItems: SchemaValidateFunction = (_schema, data: unknown[], parentSchema, cxt) => {
  const seen = new Map<string, number>();
  for (const [j, item] of data.entries()) {
    const key = jsonDigest(item);
    const i = seen.get(key);
    if (i !== undefined) {
      uniqueItems.errors = [
        {
          keyword: 'uniqueItems',
          instancePath: cxt?.instancePath ?? '',
          // ajv's own wording and params: i is the later index, j the earlier.
          params: { i: j, j: i },
          message: `must NOT have duplicate items (items ## ${i} and ${j} are identical)`,
          parentSchema,
        },
      ];
      return false;
    }
    seen.set(key, j);
  }
  return true;
};

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
  instance.addKeyword({
    keyword: UNIQUE,
    type: 'array',
    schemaType: 'boolean',
    errors: true,
    validate: uniqueItems,
  });
  return instance;
}

export function validatorFor(version: string): ValidateFunction {
  let validate = compiled.get(version);
  if (!validate) {
    ajv ??= makeAjv();
    validate = ajv.compile(readSchema(`bom-${version}.SNAPSHOT.schema.json`));
    compiled.set(version, validate);
  }
  return validate;
}

/** Where the failed rule sits, e.g. `bom-1.6.SNAPSHOT.schema.json#/definitions/component/required`. */
export function schemaRuleAt(e: ErrorObject): string {
  const at = e.parentSchema ? schemaLocation.get(e.parentSchema) : undefined;
  return at ? `${at}/${e.keyword}` : e.schemaPath;
}
