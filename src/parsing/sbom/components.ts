/** Shared helpers: JSON pointers, quoting, hash names and the searchable text of a component list. */
import type { SbomComponent, SbomFormat } from './types.ts';

/** RFC 6901 escaping, as ajv writes its instancePath. */
export function pointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Document values quoted into messages are cut short: a refusal must not echo a whole file. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value);
}

/** `SHA-256` (CycloneDX) and `SHA256` (SPDX) are one algorithm; `SHA3-256` keeps its hyphen. */
export function hashAlg(alg: string): string {
  const sha2 = /^SHA-(1|224|256|384|512)$/i.exec(alg);
  return (sha2 ? `sha${sha2[1]}` : alg).toLowerCase();
}

const FIELD_MAX = 300;

/**
 * One line of evidence text holds one value: control characters (a newline would forge another
 * component line) become spaces, runs of space collapse, and overlong values are cut.
 */
export function clean(value: string): string {
  const flat = value
    .replace(/[\p{Cc}\u2028\u2029]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > FIELD_MAX ? `${flat.slice(0, FIELD_MAX)}…` : flat;
}

/** Spaces inside a licence expression stay readable; the list separator is a comma. */
export function componentLine(c: SbomComponent): string {
  const parts = ['component:', clean(c.name) || '(unnamed)'];
  if (c.version) parts.push(clean(c.version));
  if (c.purl) parts.push(`purl=${clean(c.purl).replaceAll(' ', '%20')}`);
  if (c.licenses.length > 0) parts.push(`licenses=${c.licenses.map(clean).join(',')}`);
  for (const h of c.hashes)
    parts.push(`${clean(h.alg).replaceAll(' ', '')}=${clean(h.value).replaceAll(' ', '')}`);
  return parts.join(' ');
}

const FORMAT_NAMES: Record<SbomFormat, string> = { cyclonedx: 'CycloneDX', spdx: 'SPDX' };

/** Header line, then one line per component in document order. */
export function sbomText(
  format: SbomFormat,
  specVersion: string,
  name: string | null,
  components: readonly SbomComponent[],
): string {
  const header = `sbom: ${FORMAT_NAMES[format]} ${specVersion} document=${name ? clean(name) : '(unnamed)'} components=${components.length}`;
  return [header, ...components.map(componentLine)].join('\n');
}
