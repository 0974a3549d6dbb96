/**
 * Canonical hashes of file trees. The framing (path, byte length, bytes, per file, sorted by path
 * in code-unit order) makes the hash independent of the order files were read in, and no two
 * different trees share a byte stream.
 */
import { createHash } from 'node:crypto';
import type { PackageFile, WorldFile } from './types.ts';

const encoder = new TextEncoder();

function hashTree(files: Array<{ path: string; bytes: Uint8Array }>): string {
  const hash = createHash('sha256');
  const sorted = [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  for (const file of sorted) {
    hash.update(encoder.encode(`${file.path}\n${file.bytes.byteLength}\n`));
    hash.update(file.bytes);
    hash.update('\n');
  }
  return hash.digest('hex');
}

/** Hex SHA-256 of a challenge package (every file, `challenge.json` included). */
export function packageSha256(files: PackageFile[]): string {
  return hashTree(files);
}

/** Hex SHA-256 of a workspace tree (UTF-8 contents): the world seed, or a run's final workspace. */
export function worldSha256(files: WorldFile[]): string {
  return hashTree(files.map((file) => ({ path: file.path, bytes: encoder.encode(file.content) })));
}

/** Hex SHA-256 of one text file's UTF-8 content. */
export function contentSha256(content: string): string {
  return createHash('sha256').update(content, 'utf8').digest('hex');
}
