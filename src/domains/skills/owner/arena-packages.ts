import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database } from '../../../storage/database.ts';
import { builtinChallenges, ChallengeRegistry } from '../../arena/index.ts';
import type { Actor } from '../access.ts';
import {
  listOwnPackages,
  presentPackage,
  reachPackage,
  readInRun,
  sharePackage,
  withdrawPackage,
} from '../arena/packages.ts';
import { parseContext } from '../context.ts';
import type { PageQuery } from '../paging.ts';
import { flaggedText, UNTRUSTED_NOTE } from '../present.ts';
import { readTextWindow, readWholeFile, versionFiles } from '../reads.ts';

/**
 * Arena skill packages for owners (`/v1/arena/skill-packages…`, docs/skills.md "Arena packages"):
 * the owner shares its account's versions to any challenge version that can be assigned, lists
 * and withdraws its own packages, and reads one under a context (OWN: its own versions).
 */
export class SkillArenaOwnerService {
  private registry: Promise<ChallengeRegistry> | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    private readonly requireOn: () => void,
  ) {}

  private actor(ownerId: string): Actor {
    return { ownerId, agentId: null };
  }

  /** The challenge versions that can be assigned, loaded on first use (the Arena's own registry). */
  private async requireChallenge(challengeId: string, version: number): Promise<void> {
    this.registry ??= builtinChallenges().then((b) => new ChallengeRegistry(this.database, b));
    const found = await (await this.registry).get(this.database.db, challengeId, version);
    if (!found) {
      throw new DomainError(
        'NOT_FOUND',
        `No challenge ${challengeId} version ${version} on this deployment.`,
        { challenge_id: challengeId, version },
        { next: 'GET /v1/arena/challenges lists every challenge version that can be assigned.' },
      );
    }
  }

  async share(
    ownerId: string,
    body: { version_id: string; challenge_id: string; version: number; note?: string | undefined },
  ) {
    this.requireOn();
    await this.requireChallenge(body.challenge_id, body.version);
    const shared = await this.database.transaction((tx) =>
      sharePackage(
        tx,
        this.actor(ownerId),
        {
          versionId: body.version_id,
          challengeId: body.challenge_id,
          challengeVersion: body.version,
          fromRunId: null,
          note: body.note,
        },
        this.clock.now(),
      ),
    );
    return {
      ...presentPackage(shared.pkg, shared.version),
      created: shared.created,
      next: `${readInRun(shared.pkg)} Withdraw it with DELETE /v1/arena/skill-packages/${shared.pkg.id}.`,
    };
  }

  async list(ownerId: string, challengeId: string, version: number, page: PageQuery) {
    this.requireOn();
    await this.requireChallenge(challengeId, version);
    const listed = await listOwnPackages(
      this.database.db,
      this.secret,
      ownerId,
      { challengeId, challengeVersion: version },
      page,
    );
    return {
      challenge_id: challengeId,
      version,
      packages: listed.rows.map((r) => presentPackage(r.pkg, r.version)),
      next_cursor: listed.next_cursor,
      note: 'Your own live packages of this challenge version; what other owners shared is read by identities in an Arena run of it (skill_list under ARENA_RUN).',
    };
  }

  async get(ownerId: string, packageId: string, context: string) {
    this.requireOn();
    const db = this.database.db;
    const { pkg, reached } = await reachPackage(
      db,
      this.actor(ownerId),
      packageId,
      parseContext(context),
      this.clock.now(),
    );
    const files = await versionFiles(db, pkg.versionId);
    return {
      ...presentPackage(pkg, reached.version),
      access: reached.via,
      files: files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256, text: f.isText === 'TEXT' })),
      note: UNTRUSTED_NOTE,
    };
  }

  /** One window of a text file, as GET /v1/skills/versions/{id}/file answers it. */
  async file(
    ownerId: string,
    packageId: string,
    q: { context: string; path: string; offset: number; max_chars: number },
  ) {
    this.requireOn();
    const context = parseContext(q.context);
    const now = this.clock.now();
    const read = await this.database.transaction(async (tx) => {
      const { pkg } = await reachPackage(tx, this.actor(ownerId), packageId, context, now);
      const input = {
        versionId: pkg.versionId,
        path: q.path,
        context,
        offset: q.offset,
        maxChars: q.max_chars,
      };
      return readTextWindow(tx, this.actor(ownerId), input, now);
    });
    return {
      package_id: packageId,
      version_id: read.reached.version.id,
      path: q.path,
      sha256: read.file.sha256,
      ...flaggedText(read.text),
      range: read.range,
    };
  }

  /** A file's raw bytes (download=true). */
  async fileBytes(ownerId: string, packageId: string, q: { context: string; path: string }) {
    this.requireOn();
    const context = parseContext(q.context);
    const now = this.clock.now();
    const { file } = await this.database.transaction(async (tx) => {
      const { pkg } = await reachPackage(tx, this.actor(ownerId), packageId, context, now);
      return readWholeFile(tx, this.actor(ownerId), { versionId: pkg.versionId, path: q.path, context }, now);
    });
    return { bytes: file.content, sha256: file.sha256, path: q.path };
  }

  async withdraw(ownerId: string, packageId: string) {
    this.requireOn();
    const { pkg, version, changed } = await this.database.transaction((tx) =>
      withdrawPackage(tx, this.actor(ownerId), packageId, this.clock.now()),
    );
    return {
      ...presentPackage(pkg, version),
      changed,
      next: 'Withdrawn: reads under the Arena contexts stop at once. Share it again with POST /v1/arena/skill-packages.',
    };
  }
}
