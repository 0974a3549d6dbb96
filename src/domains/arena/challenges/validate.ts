/**
 * The challenge package validator: every problem of a package at once, `{path, rule, message}`,
 * so an operator fixes a folder in one pass. A package that passes is turned into a
 * {@link LoadedChallenge}; nothing here touches the disk (see load.ts).
 */
import { packageSha256 } from './hash.ts';
import { normalizeSpace } from './json-checks.ts';
import { checkPackagePath } from './paths.ts';
import { CHALLENGE_LIMITS, type Challenge, challengeSchema } from './schema.ts';
import type { ChallengeProblem, LoadedChallenge, PackageFile, SimulatedSource, WorldFile } from './types.ts';

export const CHALLENGE_JSON = 'challenge.json';
const SOURCES_DIR = 'sources/';

export type PackageCheck =
  | { ok: true; loaded: LoadedChallenge }
  | { ok: false; problems: ChallengeProblem[] };

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decode(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

function field(path: ReadonlyArray<PropertyKey>): string {
  return `${CHALLENGE_JSON}#${path.map(String).join('.')}`;
}

/** Size, count and path rules of the whole file list. */
function checkLayout(files: PackageFile[], problems: ChallengeProblem[]): void {
  const total = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
  if (total > CHALLENGE_LIMITS.packageBytes) {
    problems.push({
      path: '.',
      rule: 'PACKAGE_TOO_LARGE',
      message: `The package holds ${total} bytes; at most ${CHALLENGE_LIMITS.packageBytes} are allowed`,
    });
  }
  if (files.length > CHALLENGE_LIMITS.packageFiles) {
    problems.push({
      path: '.',
      rule: 'TOO_MANY_FILES',
      message: `The package holds ${files.length} files; at most ${CHALLENGE_LIMITS.packageFiles} are allowed`,
    });
  }
  const seen = new Set<string>();
  for (const file of files) {
    const bad = checkPackagePath(file.path);
    if (bad) problems.push(bad);
    if (seen.has(file.path))
      problems.push({ path: file.path, rule: 'DUPLICATE_PATH', message: 'Listed twice' });
    seen.add(file.path);
  }
}

function parseManifest(byPath: Map<string, Uint8Array>, problems: ChallengeProblem[]): Challenge | null {
  const bytes = byPath.get(CHALLENGE_JSON);
  if (!bytes) {
    problems.push({ path: CHALLENGE_JSON, rule: 'MISSING_FILE', message: 'challenge.json is required' });
    return null;
  }
  const text = decode(bytes);
  let raw: unknown;
  try {
    if (text === null) throw new Error('not UTF-8');
    raw = JSON.parse(text);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    problems.push({ path: CHALLENGE_JSON, rule: 'INVALID_JSON', message: `Not valid JSON: ${message}` });
    return null;
  }
  const parsed = challengeSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      problems.push({ path: field(issue.path), rule: 'SCHEMA', message: issue.message });
    }
    return null;
  }
  return parsed.data;
}

/** Rules that join fields to each other and to the files of the package. */
function checkConsistency(
  challenge: Challenge,
  byPath: Map<string, Uint8Array>,
  problems: ChallengeProblem[],
): void {
  const push = (path: string, rule: string, message: string) => problems.push({ path, rule, message });
  const { world } = challenge;
  if (challenge.mode === 'TEAM' && challenge.team_size === undefined) {
    push(field(['team_size']), 'TEAM_SIZE', 'A TEAM challenge states its team_size (2-4)');
  }
  if (challenge.mode === 'SOLO' && challenge.team_size !== undefined) {
    push(field(['team_size']), 'TEAM_SIZE', 'A SOLO challenge has no team_size');
  }
  const worldDir = `${world.files}/`;
  const worldBad = checkPackagePath(world.files, field(['world', 'files']));
  if (worldBad) problems.push(worldBad);
  else if (world.files === 'sources' || world.files === CHALLENGE_JSON) {
    push(field(['world', 'files']), 'WORLD_FOLDER', "The world folder cannot be 'sources' or challenge.json");
  } else if (![...byPath.keys()].some((path) => path.startsWith(worldDir))) {
    push(field(['world', 'files']), 'MISSING_FILE', `The world folder '${world.files}' holds no files`);
  }
  const sourceFiles = new Set<string>();
  const sourceIds = new Set<string>();
  world.sources.forEach((source, i) => {
    const at = field(['world', 'sources', i]);
    if (sourceIds.has(source.id)) push(`${at}.id`, 'DUPLICATE_ID', `Source id '${source.id}' is used twice`);
    sourceIds.add(source.id);
    const bad = checkPackagePath(source.file, `${at}.file`);
    if (bad) problems.push(bad);
    else if (!source.file.startsWith(SOURCES_DIR)) {
      push(`${at}.file`, 'SOURCE_OUTSIDE', "A source's file lies under sources/");
    } else if (!byPath.has(source.file)) {
      push(`${at}.file`, 'MISSING_FILE', `${source.file} is not in the package`);
    }
    sourceFiles.add(source.file);
  });
  for (const path of byPath.keys()) {
    if (path === CHALLENGE_JSON || path.startsWith(worldDir)) continue;
    if (path.startsWith(SOURCES_DIR)) {
      if (!sourceFiles.has(path))
        push(path, 'UNREFERENCED_FILE', 'No source of challenge.json names this file');
    } else {
      push(
        path,
        'PATH_OUTSIDE_LAYOUT',
        `Only challenge.json, ${worldDir} and ${SOURCES_DIR} belong in a package`,
      );
    }
  }
  for (const [path, bytes] of byPath) {
    if (!(path.startsWith(worldDir) || sourceFiles.has(path))) continue;
    const text = decode(bytes);
    if (text === null) push(path, 'NOT_UTF8', 'World and source files are UTF-8 text');
    // PostgreSQL text cannot hold U+0000, and a workspace is stored as text.
    else if (text.includes('\u0000'))
      push(path, 'NUL_CHARACTER', 'Text files cannot hold the NUL character (U+0000)');
  }
  checkRubric(challenge, byPath, worldDir, push);
}

function checkRubric(
  challenge: Challenge,
  byPath: Map<string, Uint8Array>,
  worldDir: string,
  push: (path: string, rule: string, message: string) => void,
): void {
  const tools = new Set(challenge.allowed_tools);
  const need = (tool: (typeof challenge.allowed_tools)[number], why: string) => {
    if (!tools.has(tool))
      push(field(['allowed_tools']), 'TOOL_REQUIRED', `'${tool}' must be allowed: ${why}`);
  };
  need('result_verify', 'it ends every run');
  const ids = new Set<string>();
  const roles = 'ABCD'.slice(0, challenge.team_size ?? 1);
  challenge.verifier.rubric.forEach((line, i) => {
    const at = field(['verifier', 'rubric', i]);
    if (ids.has(line.id)) push(`${at}.id`, 'DUPLICATE_ID', `Rubric id '${line.id}' is used twice`);
    ids.add(line.id);
    const check = line.check;
    if ('artifact' in check) need('artifact_submit', `rubric line '${line.id}' scores an artifact`);
    const worldPaths =
      check.type === 'sandbox_passes' ? [check.entry] : check.type === 'file_unchanged' ? check.paths : [];
    for (const path of worldPaths) {
      const bad = checkPackagePath(path, `${at}.check`);
      if (bad) push(bad.path, bad.rule, bad.message);
      else if (!byPath.has(worldDir + path))
        push(`${at}.check`, 'MISSING_FILE', `${path} is not a world file`);
    }
    if (check.type === 'json_equals' && check.partial === 'rows' && !Array.isArray(check.expected)) {
      push(`${at}.check.expected`, 'PARTIAL_NEEDS_ROWS', "partial: 'rows' needs an array of expected rows");
    }
    if (check.type === 'quote_in_source') {
      const wanted = check.must_contain.toLowerCase();
      const stated = challenge.world.sources.some((source) => {
        const bytes = byPath.get(source.file);
        return (
          bytes !== undefined &&
          normalizeSpace(decode(bytes) ?? '')
            .toLowerCase()
            .includes(wanted)
        );
      });
      if (!stated) push(`${at}.check.must_contain`, 'UNSOLVABLE', 'No source contains must_contain');
    }
    if (check.type === 'message_present') {
      need('message_append', `rubric line '${line.id}' looks for a message`);
      if (challenge.mode !== 'TEAM')
        push(`${at}.check`, 'TEAM_ONLY', 'message_present needs a TEAM challenge');
      for (const role of [check.from_role, check.to_role]) {
        if (role && !roles.includes(role))
          push(`${at}.check`, 'ROLE_OUT_OF_TEAM', `No role ${role} in this team`);
      }
    }
  });
}

/** Builds the loaded form of a package that has passed every rule. */
function assemble(
  challenge: Challenge,
  files: PackageFile[],
  byPath: Map<string, Uint8Array>,
): LoadedChallenge {
  const worldDir = `${challenge.world.files}/`;
  const worldFiles: WorldFile[] = files
    .filter((file) => file.path.startsWith(worldDir))
    .map((file) => ({ path: file.path.slice(worldDir.length), content: decode(file.bytes) ?? '' }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const sources = new Map<string, SimulatedSource>();
  for (const source of challenge.world.sources) {
    const text = decode(byPath.get(source.file) ?? new Uint8Array()) ?? '';
    sources.set(source.id, { title: source.title, url: source.url, text, kind: source.kind });
  }
  return { challenge, worldFiles, sources, sha256: packageSha256(files) };
}

/**
 * Validates a challenge package given as its files. `expect` holds the id and version its folder
 * names (`<id>/<version>/`), which challenge.json must repeat.
 * @returns the loaded challenge, or every problem found.
 */
export function checkChallengePackage(
  files: PackageFile[],
  expect?: { id: string; version: number },
): PackageCheck {
  const problems: ChallengeProblem[] = [];
  checkLayout(files, problems);
  const byPath = new Map(files.map((file) => [file.path, file.bytes]));
  const challenge = parseManifest(byPath, problems);
  if (challenge) {
    if (expect && (expect.id !== challenge.id || expect.version !== challenge.version)) {
      problems.push({
        path: field(['id']),
        rule: 'ID_MISMATCH',
        message: `The folder is ${expect.id}/${expect.version}; challenge.json says ${challenge.id}/${challenge.version}`,
      });
    }
    checkConsistency(challenge, byPath, problems);
  }
  if (problems.length > 0 || !challenge) return { ok: false, problems };
  return { ok: true, loaded: assemble(challenge, files, byPath) };
}
