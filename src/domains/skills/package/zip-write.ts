import { type Zippable, zipSync } from 'fflate';
import { checkPathSyntax } from './paths.ts';
import type { PackageFile } from './types.ts';

// Local time on purpose: fflate encodes the DOS timestamp from local fields, so this yields
// 1980-01-01 00:00:00 in the archive whatever the machine's time zone.
const DOS_EPOCH = new Date(1980, 0, 1, 0, 0, 0);
const UNIX_HOST = 3;
// Regular file, rw-r--r--, in the high 16 bits as Unix zip tools expect.
const REGULAR_FILE_ATTRS = 0o100644 * 0x10000;

/**
 * Builds the zip of a package with every file under `<root>/`. Deterministic: the same files in
 * any order give byte-identical archives (sorted paths, fixed timestamp, level and attributes,
 * no extra fields or comments), so a package's zip can be hashed and cached. `root` is one
 * path segment (the package name); anything else throws.
 */
export function buildZip(root: string, files: PackageFile[]): Uint8Array {
  if (root.includes('/') || checkPathSyntax(root)) throw new Error(`Invalid zip root folder: '${root}'`);
  const sorted = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path)));
  const entries: Zippable = {};
  // Keys contain '/', so they are never integer-like and keep insertion (sorted) order.
  for (const file of sorted) {
    const key = `${root}/${file.path}`;
    // Two files at one path would silently keep only the last: a caller's mistake, never a zip.
    if (key in entries) throw new Error(`Duplicate path in zip: '${file.path}'`);
    entries[key] = file.bytes;
  }
  return zipSync(entries, { level: 6, mtime: DOS_EPOCH, os: UNIX_HOST, attrs: REGULAR_FILE_ATTRS });
}
