import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { withTenant } from '../../../kernel/tenant.ts';
import type { Database } from '../../../storage/database.ts';
import { findAgent } from '../../identity/index.ts';
import { type Actor, reachVersion } from '../access.ts';
import { describeCapabilities } from '../capabilities.ts';
import { parseContext, type SkillContext } from '../context.ts';
import { openTicket } from '../download-ticket.ts';
import { type DraftPage, listDrafts } from '../drafts/draft-list.ts';
import { draftWindow, presentDraft } from '../drafts/draft-view.ts';
import { createDraft, draftOf, putFile, removeFile, updateDraft, validateDraft } from '../drafts/drafts.ts';
import { importZip, readImportedZip, type ZipReader } from '../imports.ts';
import { type ListFilters, listVersions } from '../listing.ts';
import { flaggedText, presentVersion, UNTRUSTED_NOTE } from '../present.ts';
import { publishVersion } from '../publish.ts';
import { readPackage, readTextWindow, readWholeFile, versionFiles } from '../reads.ts';

/**
 * Skills for owners (the `/v1/skills…` owner API and the console): the owner acts for its account,
 * so it sees and edits every draft of its identities, and its own versions under context OWN.
 * Routes answer SKILLS_DISABLED when the deployment has skills off.
 */
export class SkillOwnerService {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    readonly enabled: boolean,
    private readonly zips: ZipReader,
  ) {}

  /** Refuses every skills operation of a deployment with skills off. */
  requireOn(): void {
    if (!this.enabled) {
      throw new DomainError(
        'SKILLS_DISABLED',
        'This deployment turned skills off (CAIRN_SKILLS=off).',
        {},
        {
          next: 'Ask the operator to set CAIRN_SKILLS=on; GET /v1/skills/capabilities says what this deployment allows.',
        },
      );
    }
  }

  /** What this deployment allows: answered whether skills are on or off. */
  capabilities() {
    return describeCapabilities(this.enabled);
  }

  private actor(ownerId: string): Actor {
    return { ownerId, agentId: null };
  }

  async list(ownerId: string, context: string | undefined, filters: ListFilters) {
    this.requireOn();
    const ctx = parseContext(context, { scope: 'OWN' });
    const page = await listVersions(
      this.database.db,
      this.secret,
      this.actor(ownerId),
      ctx,
      filters,
      this.clock.now(),
    );
    return {
      context: ctx,
      versions: page.rows.map((r) => presentVersion(r, { lifecycleStatus: r.lifecycleStatus })),
      next_cursor: page.next_cursor,
    };
  }

  async listDrafts(ownerId: string, q: DraftPage) {
    this.requireOn();
    return listDrafts(this.database.db, this.secret, ownerId, q);
  }

  async createDraft(
    ownerId: string,
    body: { name: string; description?: string | undefined; tags?: string[] | undefined },
  ) {
    this.requireOn();
    const draft = await this.database.transaction((tx) =>
      createDraft(tx, this.actor(ownerId), body, this.clock.now()),
    );
    return this.getDraft(ownerId, draft.id);
  }

  async getDraft(ownerId: string, draftId: string) {
    this.requireOn();
    const db = this.database.db;
    return presentDraft(db, await draftOf(db, this.actor(ownerId), draftId));
  }

  async draftFile(ownerId: string, draftId: string, q: { path: string; offset: number; max_chars: number }) {
    this.requireOn();
    const db = this.database.db;
    const draft = await draftOf(db, this.actor(ownerId), draftId);
    const window = await draftWindow(db, draft, { path: q.path, offset: q.offset, maxChars: q.max_chars });
    return { draft_id: draft.id, revision: draft.revision, ...window };
  }

  /** Edits in one transaction, answered with the draft as it is after them. */
  async editDraft(
    ownerId: string,
    draftId: string,
    edit:
      | {
          kind: 'update';
          revision: number;
          description?: string | undefined;
          tags?: string[] | undefined;
          instructions?: string | undefined;
        }
      | { kind: 'put'; revision: number; path: string; bytes: Buffer }
      | { kind: 'remove'; revision: number; path: string }
      | { kind: 'import'; revision: number; zip: Uint8Array },
  ) {
    this.requireOn();
    const actor = this.actor(ownerId);
    // A zip is read before the transaction opens, in a parser thread as the owner's work.
    const read =
      edit.kind === 'import' ? await withTenant(ownerId, () => readImportedZip(this.zips, edit.zip)) : null;
    const now = this.clock.now();
    await this.database.transaction(async (tx) => {
      if (edit.kind === 'update') await updateDraft(tx, actor, { draftId, ...edit }, now);
      else if (edit.kind === 'put') await putFile(tx, actor, { draftId, ...edit }, now);
      else if (edit.kind === 'remove') await removeFile(tx, actor, { draftId, ...edit }, now);
      else if (read) await importZip(tx, actor, { draftId, ...edit, read }, now);
    });
    return this.getDraft(ownerId, draftId);
  }

  async validate(ownerId: string, draftId: string, revision?: number) {
    this.requireOn();
    const db = this.database.db;
    const draft = await draftOf(db, this.actor(ownerId), draftId);
    const problems = await validateDraft(db, draft);
    return {
      draft_id: draft.id,
      revision: draft.revision,
      ...(revision !== undefined && revision !== draft.revision
        ? { note: `The draft is at revision ${draft.revision}, not ${revision}.` }
        : {}),
      valid: problems.length === 0,
      problems,
    };
  }

  async publish(ownerId: string, draftId: string, revision: number) {
    this.requireOn();
    const v = await this.database.transaction((tx) =>
      publishVersion(tx, this.actor(ownerId), { draftId, revision }, this.clock.now()),
    );
    return presentVersion(v);
  }

  async getVersion(ownerId: string, versionId: string, context: string) {
    this.requireOn();
    const db = this.database.db;
    const reached = await reachVersion(
      db,
      this.actor(ownerId),
      versionId,
      parseContext(context),
      this.clock.now(),
    );
    const files = await versionFiles(db, versionId);
    return {
      ...presentVersion(reached.version, { via: reached.via }),
      files: files.map((f) => ({ path: f.path, size: f.size, sha256: f.sha256, text: f.isText === 'TEXT' })),
      note: UNTRUSTED_NOTE,
    };
  }

  async versionFile(
    ownerId: string,
    versionId: string,
    q: { context: string; path: string; offset: number; max_chars: number },
  ) {
    this.requireOn();
    const read = await this.database.transaction((tx) =>
      readTextWindow(
        tx,
        this.actor(ownerId),
        {
          versionId,
          path: q.path,
          context: parseContext(q.context),
          offset: q.offset,
          maxChars: q.max_chars,
        },
        this.clock.now(),
      ),
    );
    return {
      version_id: versionId,
      path: q.path,
      sha256: read.file.sha256,
      ...flaggedText(read.text),
      range: read.range,
    };
  }

  /** A file's raw bytes (download=true). */
  async versionFileBytes(ownerId: string, versionId: string, q: { context: string; path: string }) {
    this.requireOn();
    const { file } = await this.database.transaction((tx) =>
      readWholeFile(
        tx,
        this.actor(ownerId),
        { versionId, path: q.path, context: parseContext(q.context) },
        this.clock.now(),
      ),
    );
    return { bytes: file.content, sha256: file.sha256, path: q.path };
  }

  /**
   * The version's zip for the owner (signed in) or for the identity a ticket stands for; its
   * access is checked now, whatever the ticket said.
   */
  async download(who: { ownerId: string } | { ticket: string }, versionId: string, context: string) {
    this.requireOn();
    const now = this.clock.now();
    let actor: Actor;
    let ctx: SkillContext;
    if ('ticket' in who) {
      const opened = openTicket(this.secret, versionId, who.ticket, now);
      const agent = await findAgent(this.database.db, opened.agentId);
      if (agent?.status !== 'ACTIVE') {
        throw new DomainError(
          'UNAUTHENTICATED',
          'The identity of this download ticket is no longer active.',
          {},
        );
      }
      actor = {
        ownerId: agent.ownerId,
        agentId: agent.id,
        arena: { status: agent.status, arenaEnabled: agent.arenaEnabled },
      };
      ctx = opened.context;
    } else {
      actor = this.actor(who.ownerId);
      ctx = parseContext(context);
    }
    const { reached, zip } = await this.database.transaction((tx) =>
      readPackage(tx, actor, { versionId, context: ctx }, now),
    );
    return {
      zip,
      sha256: reached.version.packageSha256,
      filename: `${reached.version.name}-${reached.version.number}.zip`,
    };
  }
}
