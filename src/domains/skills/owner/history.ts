import type { Database } from '../../../storage/database.ts';
import { listConsents } from '../consents.ts';
import { diffVersions } from '../diff.ts';
import { versionActivity, versionHistory, versionUsage } from '../history.ts';
import { ownedVersion } from '../lifecycle.ts';
import type { PageQuery } from '../paging.ts';

/**
 * What an owner reads about its own versions: their history, activity and usage pages, the diff
 * between two of them, and where its versions are distributed (distribution consents). Only the
 * version's owner reads these; another owner's version is NOT_FOUND, as a missing one.
 */
export class SkillHistoryOwnerService {
  constructor(
    private readonly database: Database,
    private readonly secret: string,
    private readonly requireOn: () => void,
  ) {}

  async history(ownerId: string, versionId: string, page: PageQuery) {
    this.requireOn();
    const db = this.database.db;
    return versionHistory(db, this.secret, ownerId, await ownedVersion(db, ownerId, versionId), page);
  }

  async activity(ownerId: string, versionId: string, page: PageQuery) {
    this.requireOn();
    const db = this.database.db;
    return versionActivity(db, this.secret, ownerId, await ownedVersion(db, ownerId, versionId), page);
  }

  async usage(ownerId: string, versionId: string, page: PageQuery) {
    this.requireOn();
    const db = this.database.db;
    return versionUsage(db, this.secret, ownerId, await ownedVersion(db, ownerId, versionId), page);
  }

  async diff(ownerId: string, versionId: string, q: { other_version_id: string; path?: string | undefined }) {
    this.requireOn();
    return diffVersions(this.database.db, ownerId, {
      versionId,
      otherVersionId: q.other_version_id,
      path: q.path,
    });
  }

  async consents(ownerId: string, page: PageQuery) {
    this.requireOn();
    return listConsents(this.database.db, this.secret, ownerId, page);
  }
}
