/**
 * Every challenge version that can be assigned: the built-ins shipped with the code and the
 * versions operators added (`cairn arena add-challenge DIR`, stored in arena_challenge_versions so
 * every replica has them). A version is immutable, so a loaded one is cached for good.
 */
import { and, asc, desc, eq } from 'drizzle-orm';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database, Executor } from '../../../storage/database.ts';
import { arenaChallengeVersions, type StoredChallengeFile } from '../tables.ts';
import type { LoadedChallenge, PackageFile } from './types.ts';
import { checkChallengePackage } from './validate.ts';

export type ChallengeOrigin = 'BUILT_IN' | 'OPERATOR';

export interface RegisteredChallenge {
  loaded: LoadedChallenge;
  origin: ChallengeOrigin;
}

const key = (id: string, version: number) => `${id}@${version}`;
const encoder = new TextEncoder();
// ignoreBOM keeps a leading byte-order mark as U+FEFF, so the stored text encodes back to the
// very bytes that were validated and hashed (the default decoder drops it, changing the hash).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

function loadStored(files: StoredChallengeFile[], id: string, version: number): LoadedChallenge {
  const checked = checkChallengePackage(
    files.map((file) => ({ path: file.path, bytes: encoder.encode(file.content) })),
    { id, version },
  );
  // Stored versions were validated on the way in; one that no longer passes is a defect.
  if (!checked.ok) throw new Error(`stored challenge ${id} v${version} no longer validates`);
  return checked.loaded;
}

export class ChallengeRegistry {
  private readonly builtins = new Map<string, LoadedChallenge>();
  private readonly stored = new Map<string, LoadedChallenge>();

  constructor(
    private readonly database: Database,
    builtins: ReadonlyArray<LoadedChallenge>,
  ) {
    for (const c of builtins) this.builtins.set(key(c.challenge.id, c.challenge.version), c);
  }

  /** One version, or the newest version when `version` is omitted; undefined when there is none. */
  async get(ex: Executor, id: string, version?: number): Promise<RegisteredChallenge | undefined> {
    if (version !== undefined) {
      const builtin = this.builtins.get(key(id, version));
      if (builtin) return { loaded: builtin, origin: 'BUILT_IN' };
      const cached = this.stored.get(key(id, version));
      if (cached) return { loaded: cached, origin: 'OPERATOR' };
    }
    const where =
      version === undefined
        ? eq(arenaChallengeVersions.challengeId, id)
        : and(eq(arenaChallengeVersions.challengeId, id), eq(arenaChallengeVersions.version, version));
    const [row] = await ex
      .select()
      .from(arenaChallengeVersions)
      .where(where)
      .orderBy(desc(arenaChallengeVersions.version))
      .limit(1);
    const newestBuiltin = [...this.builtins.values()]
      .filter((c) => c.challenge.id === id && (version === undefined || c.challenge.version === version))
      .sort((a, b) => b.challenge.version - a.challenge.version)[0];
    if (newestBuiltin && (!row || newestBuiltin.challenge.version >= row.version)) {
      return { loaded: newestBuiltin, origin: 'BUILT_IN' };
    }
    if (!row) return undefined;
    return { loaded: this.cacheStored(row.files, row.challengeId, row.version), origin: 'OPERATOR' };
  }

  /** Every version, built-ins first, each ordered by id then version. */
  async list(): Promise<RegisteredChallenge[]> {
    const rows = await this.database.db
      .select()
      .from(arenaChallengeVersions)
      .orderBy(asc(arenaChallengeVersions.challengeId), asc(arenaChallengeVersions.version));
    return [
      ...[...this.builtins.values()].map((loaded) => ({ loaded, origin: 'BUILT_IN' as const })),
      ...rows.map((row) => ({
        loaded: this.cacheStored(row.files, row.challengeId, row.version),
        origin: 'OPERATOR' as const,
      })),
    ];
  }

  /**
   * Stores a validated package as a new version. A version that exists (built in or stored) is
   * refused: versions are immutable, so a changed package needs a new version number.
   */
  async add(files: PackageFile[], loaded: LoadedChallenge, now: Date): Promise<void> {
    const { id, version } = loaded.challenge;
    if (this.builtins.has(key(id, version))) throw versionTaken(id, version, 'a built-in');
    const stored = files.map((file) => ({ path: file.path, content: decoder.decode(file.bytes) }));
    const inserted = await this.database.db
      .insert(arenaChallengeVersions)
      .values({
        challengeId: id,
        version,
        files: stored,
        packageSha256: loaded.sha256,
        addedAt: now,
      })
      .onConflictDoNothing()
      .returning({ version: arenaChallengeVersions.version });
    if (inserted.length === 0) throw versionTaken(id, version, 'an operator');
  }

  private cacheStored(files: StoredChallengeFile[], id: string, version: number): LoadedChallenge {
    const cached = this.stored.get(key(id, version));
    if (cached) return cached;
    const loaded = loadStored(files, id, version);
    this.stored.set(key(id, version), loaded);
    return loaded;
  }
}

function versionTaken(id: string, version: number, by: string): DomainError {
  return new DomainError(
    'CONFLICT',
    `Challenge ${id} version ${version} already exists (added by ${by}); versions are immutable.`,
    { challenge_id: id, version },
    { next: `Raise "version" in challenge.json (and the folder name) to add a changed package.` },
  );
}
