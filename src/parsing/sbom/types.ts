/** What an SBOM import yields: the listed components and their searchable text, or why it was refused. */

export type SbomFormat = 'cyclonedx' | 'spdx';

export interface SbomComponent {
  name: string;
  version: string | null;
  purl: string | null;
  licenses: string[];
  /** `alg` is normalised (`SHA-256` and `SHA256` both become `sha256`) so both formats search alike. */
  hashes: Array<{ alg: string; value: string }>;
}

/** `path` is a JSON pointer into the document (`''` is the whole document); `message` starts with the failed keyword. */
export interface SbomError {
  path: string;
  message: string;
}

export type SbomResult =
  | {
      ok: true;
      format: SbomFormat;
      specVersion: string;
      name: string | null;
      components: SbomComponent[];
      text: string;
    }
  | { ok: false; format: SbomFormat | null; specVersion: string | null; errors: SbomError[] };

/** The versions SPEC lists under "Research imports"; the rest are refused by name. */
export const SUPPORTED_VERSIONS: Readonly<Record<SbomFormat, readonly string[]>> = {
  cyclonedx: ['1.4', '1.5', '1.6'],
  spdx: ['2.2', '2.3'],
};

/** Enforced upstream too; repeated here so the module is safe on its own. */
export const MAX_SBOM_BYTES = 12 * 1024 * 1024;
/** Real SBOMs nest a few levels (components in components); far deeper is an attack on the walkers. */
export const MAX_SBOM_DEPTH = 64;
export const MAX_SBOM_COMPONENTS = 50_000;
/** A refusal lists the first errors only: enough to fix the file, bounded for the response. */
export const MAX_SBOM_ERRORS = 20;
