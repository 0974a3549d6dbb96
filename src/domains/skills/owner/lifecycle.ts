import type { Clock } from '../../../kernel/clock.ts';
import type { Database } from '../../../storage/database.ts';
import type { VersionRow } from '../access.ts';
import {
  archiveSkill,
  blockVersion,
  deleteVersionBytes,
  type SkillRow,
  unblockVersion,
} from '../lifecycle.ts';

/**
 * The lifecycle for owners (`POST /v1/skills/{id}/archive`, `…/versions/{id}/block`,
 * `…/versions/{id}/privacy-byte-deletion`). Whether the caller operates the deployment is the
 * transport's to say (it knows CAIRN_OPERATOR_EMAILS); what an operator may do is decided here.
 */
export class SkillLifecycleOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly requireOn: () => void,
  ) {}

  async archive(
    ownerId: string,
    skillId: string,
    body: { reason?: string | undefined; unarchive?: boolean | undefined },
  ) {
    this.requireOn();
    const { skill, changed } = await this.database.transaction((tx) =>
      archiveSkill(tx, ownerId, skillId, body, this.clock.now()),
    );
    return presentSkill(skill, changed);
  }

  /** Blocks, or with `unblock` lifts a block; `operator` says the caller operates the deployment. */
  async block(
    ownerId: string,
    operator: boolean,
    versionId: string,
    body: { reason?: string | undefined; unblock?: boolean | undefined },
  ) {
    this.requireOn();
    const who = { ownerId, operator };
    const now = this.clock.now();
    const { version, changed } = await this.database.transaction((tx) =>
      body.unblock
        ? unblockVersion(tx, who, versionId, body.reason, now)
        : blockVersion(tx, who, versionId, body.reason ?? '', now),
    );
    return { ...presentStatus(version), changed };
  }

  async deleteBytes(ownerId: string, versionId: string, reason: string | undefined) {
    this.requireOn();
    const { version, changed, files } = await this.database.transaction((tx) =>
      deleteVersionBytes(tx, ownerId, versionId, reason, this.clock.now()),
    );
    return {
      version_id: version.id,
      skill_id: version.skillId,
      bytes_deleted: true,
      bytes_deleted_at: version.bytesDeletedAt?.toISOString() ?? null,
      files,
      package_sha256: version.packageSha256,
      changed,
      note: 'Irreversible: every read of this version’s files now answers SKILL_BYTES_DELETED; hashes, sizes, paths and history remain.',
    };
  }
}

function presentSkill(s: SkillRow, changed: boolean) {
  return {
    skill_id: s.id,
    name: s.name,
    lifecycle_status: s.lifecycleStatus,
    archived_at: s.archivedAt?.toISOString() ?? null,
    archive_reason: s.archiveReason,
    version_count: s.versionCount,
    changed,
    note:
      s.lifecycleStatus === 'ARCHIVED'
        ? 'Archived: its versions stay delivered where they already are (grants, libraries, attachments) but are not newly granted, proposed, attached or published from. Send {"unarchive": true} to make it active again.'
        : 'Active: its versions may be granted, proposed, attached and published from.',
  };
}

function presentStatus(v: VersionRow) {
  return {
    version_id: v.id,
    skill_id: v.skillId,
    number: v.number,
    status: v.status,
    blocked_at: v.blockedAt?.toISOString() ?? null,
    blocked_by: v.blockedBy,
    block_reason: v.blockReason,
  };
}
