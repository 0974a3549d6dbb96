import { eq } from 'drizzle-orm';
import type { Clock } from '../../../kernel/clock.ts';
import type { Database } from '../../../storage/database.ts';
import { lockedOne } from '../../../storage/locked.ts';
import { versionNotFound } from '../errors.ts';
import { grantVersion, listGrants, presentGrant, revokeGrant } from '../grants.ts';
import { pageById } from '../paging.ts';
import { skillGrants, skillVersions } from '../tables.ts';

/**
 * Grants for owners: `POST /v1/skills/versions/{id}/grants`, `POST /v1/skill-grants/{id}/revoke`
 * and the version's grants page. Only the version's owner grants; another owner's version is
 * NOT_FOUND, as a missing one.
 */
export class SkillGrantOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    private readonly requireOn: () => void,
  ) {}

  async grant(ownerId: string, versionId: string, body: { grantee_id: string; note?: string | undefined }) {
    this.requireOn();
    const { grant, created } = await this.database.transaction(async (tx) => {
      const version = await lockedOne(
        tx.select().from(skillVersions).where(eq(skillVersions.id, versionId)),
        () => versionNotFound(versionId),
        { only: (v) => v.ownerId === ownerId },
      );
      return grantVersion(
        tx,
        ownerId,
        version,
        { granteeId: body.grantee_id, note: body.note },
        this.clock.now(),
      );
    });
    return {
      ...presentGrant(grant),
      created,
      next: `The identity reads it with skill_get(version_id: "${versionId}", context: "{\\"scope\\":\\"OWN\\"}"); revoke with POST /v1/skill-grants/${grant.id}/revoke.`,
    };
  }

  async revoke(ownerId: string, grantId: string, reason: string | undefined) {
    this.requireOn();
    const grant = await this.database.transaction((tx) =>
      revokeGrant(tx, ownerId, grantId, reason, this.clock.now()),
    );
    return presentGrant(grant);
  }

  async list(ownerId: string, versionId: string, page: { limit: number; cursor?: string | undefined }) {
    this.requireOn();
    const db = this.database.db;
    const [version] = await db.select().from(skillVersions).where(eq(skillVersions.id, versionId));
    if (!version || version.ownerId !== ownerId) throw versionNotFound(versionId);
    const { rows, next_cursor } = await pageById(
      this.secret,
      ['skill-grants', ownerId, versionId],
      page,
      (before, take) => listGrants(db, versionId, take, before),
      skillGrants.id,
    );
    return { version_id: versionId, grants: rows.map(presentGrant), next_cursor };
  }
}
