/**
 * SBOM imports (SPEC "Research imports"): CycloneDX JSON 1.4-1.6 and SPDX JSON 2.2/2.3 are
 * validated against their official schemas and reduced to components and searchable text.
 * Pure: no database, no network; it runs in the parser worker pool. Never throws on bad input.
 */
import { sbomText } from './components.ts';
import {
  countCycloneDxComponents,
  cycloneDxComponents,
  cycloneDxName,
  validateCycloneDx,
} from './cyclonedx.ts';
import { parseSbomBytes } from './json-guard.ts';
import { spdxComponents, validateSpdx } from './spdx.ts';
import {
  MAX_SBOM_COMPONENTS,
  type SbomComponent,
  type SbomError,
  type SbomFormat,
  type SbomResult,
  SUPPORTED_VERSIONS,
} from './types.ts';

export type { SbomComponent, SbomError, SbomFormat, SbomResult } from './types.ts';
export {
  MAX_SBOM_BYTES,
  MAX_SBOM_COMPONENTS,
  MAX_SBOM_DEPTH,
  MAX_SBOM_ERRORS,
  SUPPORTED_VERSIONS,
} from './types.ts';

type Json = Record<string, unknown>;

/**
 * The format and version a document declares (`bomFormat: "CycloneDX"` with `specVersion`, or
 * `spdxVersion: "SPDX-<version>"`), supported or not; null when it declares neither.
 */
export function detectSbom(json: unknown): { format: SbomFormat; specVersion: string } | null {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return null;
  const doc = json as Json;
  if (doc.bomFormat === 'CycloneDX' && typeof doc.specVersion === 'string') {
    return { format: 'cyclonedx', specVersion: doc.specVersion };
  }
  const spdx = typeof doc.spdxVersion === 'string' ? /^SPDX-(.+)$/.exec(doc.spdxVersion) : null;
  if (spdx?.[1]) return { format: 'spdx', specVersion: spdx[1] };
  return null;
}

const refuse = (format: SbomFormat | null, specVersion: string | null, errors: SbomError[]): SbomResult => ({
  ok: false,
  format,
  specVersion,
  errors,
});

const EXPECTED: Record<SbomFormat, SbomError> = {
  cyclonedx: {
    path: '',
    message: 'format: a CycloneDX document has bomFormat "CycloneDX" and a specVersion string',
  },
  spdx: { path: '', message: 'format: an SPDX document has an spdxVersion string "SPDX-2.x"' },
};

/** Validates an SBOM file; `format`, when given, is what the importer expects the file to be. */
export function validateSbom(bytes: Uint8Array, format?: SbomFormat): SbomResult {
  try {
    return validateUnguarded(bytes, format);
  } catch (err) {
    // The checks above should leave nothing to throw; if one does, the file is still refused, not the worker.
    const detail = err instanceof Error ? err.message.slice(0, 200) : String(err);
    return refuse(format ?? null, null, [
      { path: '', message: `internal: the file could not be checked (${detail})` },
    ]);
  }
}

function validateUnguarded(bytes: Uint8Array, expected: SbomFormat | undefined): SbomResult {
  const parsed = parseSbomBytes(bytes);
  if (!parsed.ok) return refuse(expected ?? null, null, [parsed.error]);
  const doc = parsed.value as Json;
  const found = detectSbom(doc);
  if (!found) {
    const errors = expected
      ? [EXPECTED[expected]]
      : [{ path: '', message: 'format: not an SBOM: neither CycloneDX (bomFormat) nor SPDX (spdxVersion)' }];
    return refuse(expected ?? null, null, errors);
  }
  const { format, specVersion } = found;
  if (expected && expected !== format) {
    return refuse(format, specVersion, [
      { path: '', message: `format: expected ${expected}, the file is ${format}` },
    ]);
  }
  const supported = SUPPORTED_VERSIONS[format];
  if (!supported.includes(specVersion)) {
    const field = format === 'cyclonedx' ? '/specVersion' : '/spdxVersion';
    const message = `version: ${format === 'cyclonedx' ? 'CycloneDX' : 'SPDX'} ${JSON.stringify(specVersion.slice(0, 20))} is not supported; supported: ${supported.join(', ')}`;
    return refuse(format, specVersion, [{ path: field, message }]);
  }
  const count = format === 'cyclonedx' ? countCycloneDxComponents(doc) : countSpdxPackages(doc);
  if (count > MAX_SBOM_COMPONENTS) {
    const message = `size: ${count} components, more than the ${MAX_SBOM_COMPONENTS} an import may hold`;
    return refuse(format, specVersion, [{ path: '', message }]);
  }
  const errors =
    format === 'cyclonedx' ? validateCycloneDx(doc, specVersion) : validateSpdx(doc, specVersion);
  if (errors.length > 0) return refuse(format, specVersion, errors);
  const components: SbomComponent[] = format === 'cyclonedx' ? cycloneDxComponents(doc) : spdxComponents(doc);
  const name = format === 'cyclonedx' ? cycloneDxName(doc) : (doc.name as string);
  return {
    ok: true,
    format,
    specVersion,
    name,
    components,
    text: sbomText(format, specVersion, name, components),
  };
}

const countSpdxPackages = (doc: Json): number => (Array.isArray(doc.packages) ? doc.packages.length : 0);
