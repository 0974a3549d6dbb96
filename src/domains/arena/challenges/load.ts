/**
 * Loading challenge packages from folders: an operator's (`cairn arena add-challenge DIR`) and
 * the built-in ones shipped in the repository's `arena/challenges/<id>/<version>/`. Reading is
 * bounded: the tree is listed and measured before any content is read, symbolic links are
 * refused, and a folder over the limits is reported without being read.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DomainError } from '../../../kernel/errors.ts';
import { CHALLENGE_LIMITS } from './schema.ts';
import type { ChallengeProblem, LoadedChallenge, PackageFile } from './types.ts';
import { checkChallengePackage } from './validate.ts';

/** The built-in challenges, relative to this file (src/domains/arena/challenges/ → repo root). */
export const BUILTIN_CHALLENGES_DIR = fileURLToPath(
  new URL('../../../../arena/challenges/', import.meta.url),
);

/** Entries (files and folders) listed before giving up on a runaway tree. */
const MAX_ENTRIES = 4 * CHALLENGE_LIMITS.packageFiles;

interface Listing {
  files: Array<{ path: string; size: number }>;
  problems: ChallengeProblem[];
}

async function listTree(root: string): Promise<Listing> {
  const listing: Listing = { files: [], problems: [] };
  let entries = 0;
  const walk = async (rel: string): Promise<void> => {
    const names = (await readdir(join(root, rel))).sort();
    for (const name of names) {
      if (++entries > MAX_ENTRIES) return;
      const path = rel === '' ? name : `${rel}/${name}`;
      const stat = await lstat(join(root, path));
      if (stat.isSymbolicLink()) {
        listing.problems.push({ path, rule: 'SYMLINK', message: 'Symbolic links are not allowed' });
      } else if (stat.isDirectory()) {
        await walk(path);
      } else if (stat.isFile()) {
        listing.files.push({ path, size: stat.size });
      } else {
        listing.problems.push({ path, rule: 'NOT_A_FILE', message: 'Only plain files and folders' });
      }
    }
  };
  await walk('');
  if (entries > MAX_ENTRIES) {
    listing.problems.push({ path: '.', rule: 'TOO_MANY_FILES', message: `More than ${MAX_ENTRIES} entries` });
  }
  return listing;
}

/**
 * Reads a challenge folder's files, or the problems that stop it from being read (a missing
 * folder, symbolic links, a tree over the file or byte limit).
 */
export async function readChallengeDir(
  dir: string,
): Promise<{ files: PackageFile[]; problems: ChallengeProblem[] }> {
  try {
    if (!(await lstat(dir)).isDirectory()) throw new Error('not a folder');
  } catch {
    return { files: [], problems: [{ path: '.', rule: 'NOT_A_FOLDER', message: `${dir} is not a folder` }] };
  }
  const { files, problems } = await listTree(dir);
  const total = files.reduce((sum, file) => sum + file.size, 0);
  if (files.length > CHALLENGE_LIMITS.packageFiles) {
    problems.push({
      path: '.',
      rule: 'TOO_MANY_FILES',
      message: `The folder holds ${files.length} files; at most ${CHALLENGE_LIMITS.packageFiles} are allowed`,
    });
  }
  if (total > CHALLENGE_LIMITS.packageBytes) {
    problems.push({
      path: '.',
      rule: 'PACKAGE_TOO_LARGE',
      message: `The folder holds ${total} bytes; at most ${CHALLENGE_LIMITS.packageBytes} are allowed`,
    });
  }
  if (problems.length > 0) return { files: [], problems };
  const read = await Promise.all(
    files.map(async (file) => ({
      path: file.path,
      bytes: new Uint8Array(await readFile(join(dir, file.path))),
    })),
  );
  return { files: read, problems };
}

/** The `<id>/<version>` a folder's own names state, when they have that shape. */
function folderNames(dir: string): { id: string; version: number } | undefined {
  const version = basename(dir);
  if (!/^[1-9][0-9]*$/.test(version)) return undefined;
  return { id: basename(dirname(dir)), version: Number(version) };
}

/**
 * Loads and validates one challenge version folder.
 * @param expect the id and version the folder must hold; by default taken from the folder's
 *   own names when it is laid out as `<id>/<version>/`.
 * @throws DomainError VALIDATION_FAILED with `details.problems` listing every problem.
 */
export async function loadChallengeDir(
  dir: string,
  expect: { id: string; version: number } | undefined = folderNames(dir),
): Promise<LoadedChallenge> {
  const read = await readChallengeDir(dir);
  const checked =
    read.problems.length > 0
      ? { ok: false as const, problems: read.problems }
      : checkChallengePackage(read.files, expect);
  if (!checked.ok) {
    const first = checked.problems[0];
    throw new DomainError(
      'VALIDATION_FAILED',
      `The challenge package is invalid (${checked.problems.length} problem(s); first: ${first?.path}: ${first?.message})`,
      { problems: checked.problems },
    );
  }
  return checked.loaded;
}

/**
 * Every built-in challenge version, ordered by id then version.
 * @throws DomainError VALIDATION_FAILED when a shipped package is broken (a defect of the release).
 */
export async function builtinChallenges(root: string = BUILTIN_CHALLENGES_DIR): Promise<LoadedChallenge[]> {
  const loaded: LoadedChallenge[] = [];
  const folders = async (dir: string) =>
    (await readdir(dir, { withFileTypes: true }))
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  for (const id of (await folders(root)).sort()) {
    const versions = (await folders(join(root, id))).filter((name) => /^[1-9][0-9]*$/.test(name));
    for (const version of versions.sort((a, b) => Number(a) - Number(b))) {
      loaded.push(await loadChallengeDir(join(root, id, version), { id, version: Number(version) }));
    }
  }
  return loaded;
}
