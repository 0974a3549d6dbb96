/**
 * CycloneDX JSON 1.4-1.6: refusals from the official schemas (cyclonedx-schema.ts) with JSON
 * pointers, and the components of a valid document.
 */
import type { ErrorObject } from 'ajv';
import { hashAlg, quote } from './components.ts';
import { schemaRuleAt, validatorFor } from './cyclonedx-schema.ts';
import { MAX_SBOM_ERRORS, type SbomComponent, type SbomError } from './types.ts';

type Json = Record<string, unknown>;

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

/** Errors against the official schema of `version` (one of 1.4, 1.5, 1.6). */
export function validateCycloneDx(doc: unknown, version: string): SbomError[] {
  const validate = validatorFor(version);
  if (validate(doc)) return [];
  return (validate.errors ?? []).slice(0, MAX_SBOM_ERRORS).map((e) => ({
    path: e.instancePath,
    message: `${e.keyword}: ${e.message ?? 'invalid'}${detail(e)} (schema ${schemaRuleAt(e)})`,
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
