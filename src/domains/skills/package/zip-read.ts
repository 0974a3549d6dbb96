import { crc32 } from 'node:zlib';
import { Inflate } from 'fflate';
import { checkPath, checkPathSyntax } from './paths.ts';
import { decodeUtf8 } from './text.ts';
import { PACKAGE_LIMITS, type PackageFile, type Problem, sortProblems } from './types.ts';

const EOCD_SIG = 0x06054b50;
const ZIP64_LOCATOR_SIG = 0x07064b50;
const CENTRAL_SIG = 0x02014b50;
const LOCAL_SIG = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const UNIX_HOST = 3;
const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
// Deflate expands at most ~1032:1, so a 1 KiB slice yields at most ~1 MiB: the cap is noticed
// within one slice, and a bomb never gets to allocate much more than the cap.
export const INFLATE_SLICE = 1024;

interface Entry {
  name: string;
  utf8: boolean;
  zip64: boolean;
  madeBy: number;
  flags: number;
  method: number;
  crc: number;
  compressedSize: number;
  localOffset: number;
  external: number;
}

interface Archive {
  entries: Entry[];
  centralOffset: number;
}

const problem = (path: string, rule: string, message: string): Problem => ({ path, rule, message });

class Stop extends Error {
  constructor(readonly problem: Problem) {
    super(problem.message);
  }
}

function findEocd(view: DataView): number {
  const last = view.byteLength - EOCD_SIZE;
  // The record ends the file but may carry a comment of up to 64 KiB, so scan backwards for a
  // signature whose comment length reaches exactly the end of the input.
  for (let at = last; at >= 0 && at >= last - MAX_COMMENT; at--) {
    if (
      view.getUint32(at, true) === EOCD_SIG &&
      at + EOCD_SIZE + view.getUint16(at + 20, true) === view.byteLength
    ) {
      return at;
    }
  }
  throw new Stop(problem('', 'ZIP_INVALID', 'Not a zip archive: no end of central directory record'));
}

/** Reads the central directory, the only index trusted: local headers merely locate the data. */
function readArchive(zip: Uint8Array): Archive {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const eocd = findEocd(view);
  const total = view.getUint16(eocd + 10, true);
  const size = view.getUint32(eocd + 12, true);
  const centralOffset = view.getUint32(eocd + 16, true);
  const zip64 = eocd >= 20 && view.getUint32(eocd - 20, true) === ZIP64_LOCATOR_SIG;
  if (zip64 || total === 0xffff || size === 0xffffffff || centralOffset === 0xffffffff) {
    throw new Stop(problem('', 'ZIP_UNSUPPORTED', 'ZIP64 archives are not supported'));
  }
  if (view.getUint16(eocd + 4, true) !== 0 || view.getUint16(eocd + 6, true) !== 0) {
    throw new Stop(problem('', 'ZIP_UNSUPPORTED', 'Multi-volume zip archives are not supported'));
  }
  const end = centralOffset + size;
  if (end > eocd) throw new Stop(problem('', 'ZIP_INVALID', 'Central directory lies outside the archive'));
  const entries: Entry[] = [];
  let files = 0;
  for (let i = 0, at = centralOffset; i < total; i++) {
    if (at + 46 > end || view.getUint32(at, true) !== CENTRAL_SIG) {
      throw new Stop(problem('', 'ZIP_INVALID', 'Corrupt central directory'));
    }
    const nameLength = view.getUint16(at + 28, true);
    const next = at + 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    if (next > end) throw new Stop(problem('', 'ZIP_INVALID', 'Corrupt central directory'));
    const nameBytes = zip.subarray(at + 46, at + 46 + nameLength);
    // Names are UTF-8 (flag 11) in practice even when unflagged; a name that is not is refused.
    const utf8 = decodeUtf8(nameBytes);
    const name = utf8 ?? new TextDecoder().decode(nameBytes);
    if (!name.endsWith('/') && ++files > PACKAGE_LIMITS.files) {
      throw new Stop(problem('', 'TOO_MANY_FILES', `Archive has more than ${PACKAGE_LIMITS.files} files`));
    }
    entries.push({
      name,
      utf8: utf8 !== null,
      zip64: view.getUint32(at + 20, true) === 0xffffffff || view.getUint32(at + 24, true) === 0xffffffff,
      madeBy: view.getUint16(at + 4, true),
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      crc: view.getUint32(at + 16, true),
      compressedSize: view.getUint32(at + 20, true),
      localOffset: view.getUint32(at + 42, true),
      external: view.getUint32(at + 38, true),
    });
    at = next;
  }
  return { entries, centralOffset };
}

/** The common top folder to strip (people zip the skill's folder), or '' when there is none. */
function topFolder(names: string[]): string {
  const first = names[0]?.split('/')[0];
  if (first === undefined || checkPathSyntax(first)) return '';
  return names.every((n) => n.startsWith(`${first}/`)) ? `${first}/` : '';
}

type Inflated = { bytes: Uint8Array; produced: number } | { bytes: null; produced: number };

/**
 * Inflates raw deflate data slice by slice, counting what comes out, and gives up (bytes: null)
 * as soon as more than `cap` bytes were produced: the sizes an archive declares are never used.
 */
export function inflateCapped(data: Uint8Array, cap: number): Inflated {
  const chunks: Uint8Array[] = [];
  let produced = 0;
  const inflate = new Inflate((chunk) => {
    produced += chunk.length;
    if (produced <= cap) chunks.push(chunk);
  });
  for (let at = 0; at < data.length || at === 0; at += INFLATE_SLICE) {
    inflate.push(data.subarray(at, at + INFLATE_SLICE), at + INFLATE_SLICE >= data.length);
    if (produced > cap) return { bytes: null, produced };
  }
  return { bytes: Buffer.concat(chunks), produced };
}

function entryData(zip: Uint8Array, entry: Entry, centralOffset: number): Uint8Array | null {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const at = entry.localOffset;
  if (at + 30 > centralOffset || view.getUint32(at, true) !== LOCAL_SIG) return null;
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  return end > centralOffset ? null : zip.subarray(start, end);
}

/** Why an entry is not extracted, before its data is looked at, or null when it may be. */
function refuse(entry: Entry, path: string, seen: Set<string>): Problem | null {
  if (!entry.utf8) return problem(path, 'PATH_CHARACTERS', 'Entry name is not valid UTF-8');
  if (entry.madeBy >> 8 === UNIX_HOST && ((entry.external >>> 16) & S_IFMT) === S_IFLNK) {
    return problem(path, 'SYMLINK', 'Symbolic links are not allowed in a package');
  }
  const pathProblem = checkPath(path);
  if (pathProblem) return pathProblem;
  if (entry.flags & 1) return problem(path, 'ZIP_UNSUPPORTED', 'Encrypted entries are not supported');
  if (entry.zip64) return problem(path, 'ZIP_UNSUPPORTED', 'ZIP64 entries are not supported');
  if (entry.method !== 0 && entry.method !== 8) {
    return problem(
      path,
      'ZIP_UNSUPPORTED',
      `Compression method ${entry.method} is not supported (stored or deflate only)`,
    );
  }
  if (seen.has(path)) return problem(path, 'PATH_DUPLICATE', 'The archive contains this path more than once');
  return null;
}

function extractAll(zip: Uint8Array, archive: Archive): { files: PackageFile[]; problems: Problem[] } {
  const files: PackageFile[] = [];
  const problems: Problem[] = [];
  const entries = archive.entries.filter((e) => !e.name.endsWith('/'));
  const strip = topFolder(entries.map((e) => e.name)).length;
  const seen = new Set<string>();
  let total = 0;
  for (const entry of entries) {
    const path = entry.name.slice(strip);
    const refusal = refuse(entry, path, seen);
    if (refusal) {
      problems.push(refusal);
      continue;
    }
    seen.add(path);
    const data = entryData(zip, entry, archive.centralOffset);
    if (!data) {
      problems.push(problem(path, 'ZIP_INVALID', 'Entry data lies outside the archive'));
      continue;
    }
    // Bytes of refused oversized files count too, so a run of bombs is bounded work as well.
    const budget = Math.min(PACKAGE_LIMITS.fileBytes, PACKAGE_LIMITS.packageBytes - total);
    let out: Inflated;
    try {
      out =
        entry.method === 0
          ? { bytes: data.length > budget ? null : data, produced: data.length }
          : inflateCapped(data, budget);
    } catch {
      problems.push(problem(path, 'ZIP_INVALID', 'Corrupt compressed data'));
      continue;
    }
    total += out.produced;
    if (total > PACKAGE_LIMITS.packageBytes) {
      throw new Stop(
        problem('', 'PACKAGE_TOO_LARGE', `Package exceeds ${PACKAGE_LIMITS.packageBytes} bytes unpacked`),
      );
    }
    if (!out.bytes) {
      problems.push(
        problem(path, 'FILE_TOO_LARGE', `File exceeds ${PACKAGE_LIMITS.fileBytes} bytes unpacked`),
      );
      continue;
    }
    if (crc32(out.bytes) >>> 0 !== entry.crc) {
      problems.push(problem(path, 'ZIP_INVALID', 'CRC-32 mismatch: the entry is corrupt'));
      continue;
    }
    files.push({ path, bytes: Uint8Array.from(out.bytes) });
  }
  return { files, problems };
}

/**
 * Imports an uploaded zip safely: only the central directory is trusted, symlinks, unsafe paths,
 * encrypted/ZIP64/exotic entries are refused with a problem and not extracted, decompression is
 * capped by what is actually produced, and each file's CRC-32 is verified. A common top folder
 * is stripped. Archive-level failures (invalid, too large, too many files) return no files.
 */
export function readZip(zip: Uint8Array): { files: PackageFile[]; problems: Problem[] } {
  if (zip.length > PACKAGE_LIMITS.importBytes) {
    return {
      files: [],
      problems: [problem('', 'ZIP_TOO_LARGE', `Archive exceeds ${PACKAGE_LIMITS.importBytes} bytes`)],
    };
  }
  try {
    const { files, problems } = extractAll(zip, readArchive(zip));
    return { files, problems: sortProblems(problems) };
  } catch (error) {
    if (error instanceof Stop) return { files: [], problems: [error.problem] };
    throw error;
  }
}
