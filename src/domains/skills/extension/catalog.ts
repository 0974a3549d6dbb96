import { and, eq, inArray } from 'drizzle-orm';
import type { SkillCatalog, SkillEntry, SkillFileContent } from '../../../framework/index.ts';
import type { Clock } from '../../../kernel/clock.ts';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { DomainError } from '../../../kernel/errors.ts';
import type { Database } from '../../../storage/database.ts';
import { skillStandingsOf } from '../../campaigns/index.ts';
import type { Caller } from '../../identity/index.ts';
import { type Actor, reachVersion, requireDeliverable, type VersionRow } from '../access.ts';
import { contextString, OWN, type SkillContext } from '../context.ts';
import { listVersions } from '../listing.ts';
import { parseFrontmatter } from '../package/index.ts';
import { actorOf, SKILLS_AUDIENCE } from '../policy.ts';
import { readWholeFile } from '../reads.ts';
import { skillVersionFiles } from '../tables.ts';
import { mimeTypeOf } from './mime.ts';
import { fileUri, parseSkillUri, SKILL_MD, SKILL_SCHEME, skillRoot } from './skill-uris.ts';

/**
 * The skills area's catalog for MCP's Skills extension (framework/skill-catalog.ts): the same
 * versions, contexts and checks as skill_list, skill_get and skill_file_get, with URIs instead of
 * arguments. Every answer is decided in SQL as those tools' are (access.ts), on every call, so a
 * revoked grant or an ended lease takes effect at once; a URI the caller may not read is the
 * same null as one that does not exist.
 */

/** Entries per skills/list page, and the campaigns whose libraries one listing walks. */
export const EXTENSION_LIMITS = { pageEntries: 20, listedCampaigns: 50 } as const;

interface ListPosition extends Record<string, unknown> {
  /** The context the page stopped in, and its own cursor there (null: from its start). */
  context: string;
  inner: string | null;
}

export class SkillsExtension implements SkillCatalog {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
  ) {}

  owns(uri: string): boolean {
    return uri.startsWith(SKILL_SCHEME);
  }

  /**
   * Walks the contexts the caller stands in now: OWN (its own and granted versions), the
   * libraries of its campaigns, and the skills attached to the tasks whose lease it holds.
   * Arena contexts are not walked (a run's skills are named by the run's own answers); their
   * URIs are still answered by get and read.
   */
  async list(caller: Caller, cursor: string | undefined) {
    if (!mayRead(caller)) return { skills: [], nextCursor: null };
    const actor = actorOf(caller);
    const now = this.clock.now();
    const binding = `skills-extension:${caller.agent.id}`;
    const contexts = await this.contextsOf(caller.agent.id, now);
    let at = 0;
    let inner: string | undefined;
    if (cursor !== undefined) {
      const position = openCursor<ListPosition>(this.secret, binding, cursor);
      at = contexts.findIndex((c) => contextString(c) === position.context);
      // The context the last page stopped in is gone (a lease ended): nothing of it is left to list.
      if (at < 0) return { skills: [], nextCursor: null };
      inner = position.inner ?? undefined;
    }
    const skills: SkillEntry[] = [];
    while (at < contexts.length) {
      const context = contexts[at] as SkillContext;
      const want = EXTENSION_LIMITS.pageEntries - skills.length;
      const page = await this.page(actor, context, inner, want, now);
      skills.push(...page.entries);
      if (page.next) return { skills, nextCursor: this.position(binding, context, page.next) };
      at++;
      inner = undefined;
      if (skills.length >= EXTENSION_LIMITS.pageEntries) {
        const following = contexts[at];
        return { skills, nextCursor: following ? this.position(binding, following, null) : null };
      }
    }
    return { skills, nextCursor: null };
  }

  async get(uri: string, caller: Caller): Promise<SkillEntry | null> {
    const address = parseSkillUri(uri);
    if (!address || address.path !== SKILL_MD || !mayRead(caller)) return null;
    const version = await this.reach(actorOf(caller), address);
    if (!version) return null;
    const [entry] = await this.entries([version], address.context);
    return entry ?? null;
  }

  /** The whole file, recorded as delivered (under a TASK context: under the lease). */
  async read(uri: string, caller: Caller): Promise<SkillFileContent | null> {
    const address = parseSkillUri(uri);
    if (!address || !mayRead(caller)) return null;
    const actor = actorOf(caller);
    if (!(await this.reach(actor, address))) return null;
    const { context, versionId, path } = address;
    const read = await absentIfDenied(() =>
      readWholeFile(this.database.db, actor, { context, versionId, path }, this.clock.now()),
    );
    if (!read) return null;
    const { file } = read;
    const mimeType = mimeTypeOf(address.path, file.isText === 'TEXT');
    return file.isText === 'TEXT'
      ? { uri, mimeType, text: file.content.toString('utf8') }
      : { uri, mimeType, blob: file.content.toString('base64') };
  }

  private async contextsOf(agentId: string, now: Date): Promise<SkillContext[]> {
    const { campaignIds, taskIds } = await skillStandingsOf(
      this.database.db,
      agentId,
      now,
      EXTENSION_LIMITS.listedCampaigns,
    );
    return [
      OWN,
      ...campaignIds.map((campaign_id) => ({ scope: 'CAMPAIGN' as const, campaign_id })),
      ...taskIds.map((task_id) => ({ scope: 'TASK' as const, task_id })),
    ];
  }

  private position(binding: string, context: SkillContext, inner: string | null): string {
    return signCursor(this.secret, binding, { context: contextString(context), inner });
  }

  /** One context's deliverable versions as entries, and its own cursor when it has more. */
  private async page(
    actor: Actor,
    context: SkillContext,
    cursor: string | undefined,
    limit: number,
    now: Date,
  ) {
    const listed = await absentIfDenied(() =>
      listVersions(
        this.database.db,
        this.secret,
        actor,
        context,
        { status: 'AVAILABLE', limit, cursor },
        now,
      ),
    );
    if (!listed) return { entries: [], next: null };
    const deliverable = listed.rows.filter((v) => v.bytesDeletedAt === null);
    return { entries: await this.entries(deliverable, context), next: listed.next_cursor };
  }

  /** The version as the caller reaches it under the address's context, if it may be delivered. */
  private async reach(actor: Actor, address: { context: SkillContext; versionId: string; name: string }) {
    const reached = await absentIfDenied(async () => {
      const r = await reachVersion(
        this.database.db,
        actor,
        address.versionId,
        address.context,
        this.clock.now(),
      );
      requireDeliverable(r);
      return r;
    });
    return reached && reached.version.name === address.name ? reached.version : null;
  }

  /** Entries with their complete file lists and SKILL.md frontmatter, in the versions' order. */
  private async entries(versions: VersionRow[], context: SkillContext): Promise<SkillEntry[]> {
    if (versions.length === 0) return [];
    const ids = versions.map((v) => v.id);
    const files = await this.database.db
      .select({
        versionId: skillVersionFiles.versionId,
        path: skillVersionFiles.path,
        sha256: skillVersionFiles.sha256,
        size: skillVersionFiles.size,
      })
      .from(skillVersionFiles)
      .where(inArray(skillVersionFiles.versionId, ids))
      .orderBy(skillVersionFiles.versionId, skillVersionFiles.path);
    const manifests = await this.database.db
      .select({ versionId: skillVersionFiles.versionId, content: skillVersionFiles.content })
      .from(skillVersionFiles)
      .where(and(inArray(skillVersionFiles.versionId, ids), eq(skillVersionFiles.path, SKILL_MD)));
    const entries: SkillEntry[] = [];
    for (const version of versions) {
      const manifest = manifests.find((m) => m.versionId === version.id)?.content;
      if (!manifest) continue;
      const root = skillRoot(context, version.id, version.name);
      const fields = parseFrontmatter(manifest.toString('utf8'), 'core').fields;
      entries.push({
        uri: fileUri(root, SKILL_MD),
        // Published versions passed validation, so their frontmatter parses; the row's own name
        // and description stand in should a YAML 1.2 reading ever differ in those two.
        frontmatter: { ...fields, name: version.name, description: version.description },
        resources: files
          .filter((f) => f.versionId === version.id)
          .map((f) => ({ uri: fileUri(root, f.path), digest: `sha256:${f.sha256}`, size: f.size })),
      });
    }
    return entries;
  }
}

/** Whom the skill tools are offered to (an identity in good standing) is whom the extension serves. */
const mayRead = (caller: Caller): boolean => SKILLS_AUDIENCE.visibility(caller).visible;

/** The value, or null where the skills area refuses (no standing, no such version, not deliverable). */
async function absentIfDenied<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof DomainError) return null;
    throw error;
  }
}
