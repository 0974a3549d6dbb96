/** Test-only: reads the SBOM fixtures committed under test/fixtures (never imported by the module). */
import { readFileSync } from 'node:fs';

const ROOT = new URL('../../../test/fixtures/', import.meta.url);

export const fixtureBytes = (name: string): Uint8Array => readFileSync(new URL(`sbom/${name}`, ROOT));
export const fixtureJson = (name: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`sbom/${name}`, ROOT), 'utf8')) as Record<string, unknown>;
export const spdxSchema = (version: string): Record<string, unknown> =>
  JSON.parse(readFileSync(new URL(`schemas/spdx/spdx-${version}.schema.json`, ROOT), 'utf8')) as Record<
    string,
    unknown
  >;
export const encode = (value: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(value));
