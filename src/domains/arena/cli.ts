import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { z } from 'zod';
import type { Config } from '../../config/config.ts';
import type { CliDoor } from '../../framework/index.ts';
import { systemClock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { resolveSecret } from '../../storage/secret.ts';
import {
  builtinChallenges,
  loadChallengeDir,
  packageSha256,
  readChallengeDir,
  worldSha256,
} from './challenges/index.ts';
import { ChallengeRegistry } from './challenges/registry.ts';
import { ArenaKeys } from './keys.ts';
import { MAX_SIGNED_SCORE_CHARS, verifyScore } from './scores/signing.ts';

/**
 * The arena's operator commands (docs/arena.md): adding a challenge version from a folder
 * ("Challenge packages"), rotating the signing key, and checking a signed score offline ("Signed
 * scores").
 */

/** What rotate-key and add-challenge act through; each is made on first use. */
interface ArenaCliServices {
  /** The score-signing keys; only they need the server secret. */
  arenaKeys(): Promise<ArenaKeys>;
  /** Every assignable challenge version: the built-ins (loaded and validated here) and the stored ones. */
  arenaChallenges(): Promise<ChallengeRegistry>;
}

/** The longest JWKS taken (a file or an answer): far more keys than any deployment rotates to. */
const MAX_JWKS_BYTES = 1_000_000;
const FETCH_TIMEOUT_MS = 10_000;

const location = z.string().trim().min(1).max(4096);
const verifyFlags = z.object({ file: location, jwks: location.optional() }).strict();
const addFlags = z.object({ dir: location }).strict();

const ARENA_COMMANDS = {
  'arena add-challenge': {
    usage:
      'cairn arena add-challenge DIR [--json]   (validates the challenge version in DIR (challenge.json, world/…, sources/…; a folder laid out <id>/<version>/ must repeat both) and stores it in the database for every replica; prints what was added, or exits 1 with every problem, one a line; a version is immutable: an existing one is refused)',
    flags: addFlags,
    operand: 'dir',
    run: async ({ arenaChallenges }: ArenaCliServices, f: z.infer<typeof addFlags>) =>
      addChallenge(await arenaChallenges(), f.dir),
  },
  'arena rotate-key': {
    usage:
      'cairn arena rotate-key [--json]   (retires the active score-signing key and makes a new one; every replica signs with it from its next score; the retired key stays published, so old scores still verify)',
    flags: z.object({}).strict(),
    run: async ({ arenaKeys }: ArenaCliServices) => (await arenaKeys()).rotate(),
  },
  'arena verify-score': {
    usage:
      'cairn arena verify-score FILE [--jwks URL_OR_FILE] [--json]   (checks a signed score offline: FILE holds the compact JWS or {"signed_score": …}; the keys come from the JWKS file or URL, by default CAIRN_BASE_URL/.well-known/jwks.json; prints the payload, or exits 1 with the reason)',
    flags: verifyFlags,
    operand: 'file',
    offline: true as const,
    run: async (f: z.infer<typeof verifyFlags>, config: Config) => {
      const jws = signedScoreIn(await readLocal(f.file, MAX_SIGNED_SCORE_CHARS * 2, 'the score file'));
      const jwks = await loadJwks(f.jwks ?? `${config.baseUrl}/.well-known/jwks.json`);
      const payload = await verifyScore(jws, jwks);
      return { valid: true, kid: decodeProtectedHeader(jws).kid, payload };
    },
  },
};

export const arenaCli: CliDoor<ArenaCliServices> = {
  services: ({ database, clock, config }) => ({
    arenaKeys: async () =>
      new ArenaKeys(database, clock, await resolveSecret(config.secret, database, config.dataDir, clock)),
    arenaChallenges: async () => new ChallengeRegistry(database, await builtinChallenges()),
  }),
  commands: ARENA_COMMANDS,
};

/**
 * Validates a challenge folder and stores it as a new version. What is stored is exactly what was
 * validated: the files are read again for storing, and a folder that changed in between (its
 * package hash differs) is refused rather than stored unchecked.
 */
async function addChallenge(registry: ChallengeRegistry, dir: string) {
  // Resolved first, so `.` inside `<id>/<version>/` still has its names checked.
  const root = resolve(dir);
  const loaded = await loadChallengeDir(root).catch((err: unknown) => {
    throw invalidPackage(root, err);
  });
  const read = await readChallengeDir(root);
  if (read.problems.length > 0 || packageSha256(read.files) !== loaded.sha256) {
    throw new DomainError(
      'CONFLICT',
      `${root} changed while it was read; nothing was stored.`,
      {},
      { next: 'Run the command again once nothing is writing to the folder.' },
    );
  }
  await registry.add(read.files, loaded, systemClock.now()).catch((err: unknown) => {
    throw invalidPackage(root, err);
  });
  const { challenge } = loaded;
  return {
    challenge_id: challenge.id,
    version: challenge.version,
    package_sha256: loaded.sha256,
    world_sha256: worldSha256(loaded.worldFiles),
    files: read.files.map((file) => file.path).sort(),
    next: `Listed by GET /v1/arena/challenges (origin OPERATOR) on every replica; assign it with POST /v1/arena/assignments {agent_id, challenge_id: "${challenge.id}", version: ${challenge.version}}.`,
  };
}

/** The loader's refusal with every problem on a line of its own (`path: rule: message`). */
function invalidPackage(root: string, err: unknown): unknown {
  if (!(err instanceof DomainError) || err.code !== 'VALIDATION_FAILED') return err;
  const problems = (err.details.problems ?? []) as Array<{ path: string; rule: string; message: string }>;
  return new DomainError(
    'VALIDATION_FAILED',
    [
      `The challenge package in ${root} is invalid (${problems.length} problem(s)); nothing was stored:`,
      ...problems.map((p) => `${p.path}: ${p.rule}: ${p.message}`),
    ].join('\n'),
    { problems },
    { next: 'Correct every problem listed (docs/arena.md, "Challenge packages") and run the command again.' },
  );
}

/** The compact JWS in a score file: the file itself, or the `signed_score` of a JSON answer. */
function signedScoreIn(content: string): string {
  const text = content.trim();
  if (!text.startsWith('{')) return text;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('BAD_REQUEST', 'The score file starts with { but is not JSON.');
  }
  const signed = (parsed as { signed_score?: unknown }).signed_score;
  if (typeof signed !== 'string') {
    throw new DomainError('BAD_REQUEST', 'The score file is JSON without a "signed_score" string.');
  }
  return signed.trim();
}

/**
 * The JWKS from a file (no network at all) or a URL. The URL is fetched with plain `fetch`, not
 * the guarded reader of net/: this is the operator's own tool on the operator's machine, fetching
 * the address the operator typed, never something an agent chose.
 */
async function loadJwks(from: string): Promise<JSONWebKeySet> {
  const text = /^https?:\/\//i.test(from)
    ? await fetchText(from)
    : await readLocal(from, MAX_JWKS_BYTES, 'the JWKS file');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('BAD_REQUEST', `The JWKS from ${from} is not JSON.`);
  }
  if (!parsed || typeof parsed !== 'object' || !Array.isArray((parsed as { keys?: unknown }).keys)) {
    throw new DomainError('BAD_REQUEST', `The JWKS from ${from} has no "keys" list.`);
  }
  return parsed as JSONWebKeySet;
}

async function fetchText(url: string): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
  } catch (err) {
    throw new DomainError(
      'BAD_REQUEST',
      `The JWKS at ${url} could not be fetched: ${(err as Error).message}.`,
    );
  }
  if (!res.ok) throw new DomainError('BAD_REQUEST', `The JWKS at ${url} answered HTTP ${res.status}.`);
  const text = await res.text();
  if (text.length > MAX_JWKS_BYTES) throw new DomainError('BAD_REQUEST', `The JWKS at ${url} is too large.`);
  return text;
}

async function readLocal(file: string, maxBytes: number, what: string): Promise<string> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (err) {
    throw new DomainError(
      'BAD_REQUEST',
      `${capitalised(what)} ${file} cannot be read: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}.`,
    );
  }
  if (bytes.length > maxBytes)
    throw new DomainError('BAD_REQUEST', `${capitalised(what)} ${file} is too large.`);
  return bytes.toString('utf8');
}

const capitalised = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
