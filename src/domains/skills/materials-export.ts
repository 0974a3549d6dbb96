import { createHash } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Executor } from '../../storage/database.ts';
import type { SkillsTask } from '../campaigns/index.ts';
import { liveBindings } from './attachments.ts';
import { buildZip, type PackageFile } from './package/index.ts';
import { UNTRUSTED_NOTE } from './present.ts';
import { skillVersionFiles } from './tables.ts';

/**
 * A task's materials as one zip (GET /v1/tasks/{id}/materials-export): the task (title,
 * objective, acceptance, conditions) and its live attachments, each version's files under
 * `skills/<name>/`, all inside one folder named for the task. Built with the package zip
 * (buildZip), so the same task and attachments give the same bytes: nothing time-dependent is
 * written. A version that can no longer be delivered (blocked, bytes deleted), or that would
 * take the export past EXPORT_BYTES, is left out and named in MANIFEST.json.
 */

/** The most skill bytes one export carries (20 attachments of the largest package would be 160 MiB). */
export const EXPORT_BYTES = 32 * 1024 * 1024;

type LeftOut = 'BLOCKED' | 'BYTES_DELETED' | 'EXPORT_TOO_LARGE';

const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function taskMarkdown(task: SkillsTask): string {
  return [
    `# ${task.title}`,
    '',
    `Task ${task.id} of campaign ${task.campaignId}.`,
    '',
    '## Objective',
    '',
    task.objective,
    '',
    '## Acceptance',
    '',
    task.acceptance,
    '',
    '## Conditions',
    '',
    ...Object.entries(task.conditions).map(
      ([k, v]) => `- **${k}**: ${typeof v === 'string' ? v : JSON.stringify(v)}`,
    ),
    '',
    '## Skills',
    '',
    'The attached skills are under skills/; MANIFEST.json lists them with their delivery and purpose.',
    UNTRUSTED_NOTE,
    '',
  ].join('\n');
}

/**
 * The zip and its manifest. `leaseId` names, in the manifest, the lease the materials were
 * exported for; recording deliveries is the caller's business (the worker's export records them,
 * the owner's none), and `deliveriesRecorded` says which it is.
 */
export async function buildMaterials(
  ex: Executor,
  task: SkillsTask,
  leaseId: string | null,
  deliveriesRecorded = false,
): Promise<{ zip: Uint8Array; sha256: string; manifest: Record<string, unknown> }> {
  const files: PackageFile[] = [
    { path: 'TASK.md', bytes: text(taskMarkdown(task)) },
    {
      path: 'task.json',
      bytes: text(
        `${JSON.stringify(
          {
            task_id: task.id,
            campaign_id: task.campaignId,
            title: task.title,
            objective: task.objective,
            acceptance: task.acceptance,
            conditions: task.conditions,
          },
          null,
          2,
        )}\n`,
      ),
    },
  ];
  const included: Array<Record<string, unknown>> = [];
  const leftOut: Array<Record<string, unknown>> = [];
  const folders = new Set<string>();
  let budget = EXPORT_BYTES;
  for (const { binding, version } of await liveBindings(ex, task.id)) {
    const about = {
      binding_id: binding.id,
      version_id: version.id,
      name: version.name,
      number: version.number,
      purpose: binding.purpose,
      order: binding.position,
      delivery: binding.delivery,
    };
    const reason: LeftOut | null = version.bytesDeletedAt
      ? 'BYTES_DELETED'
      : version.status === 'BLOCKED'
        ? 'BLOCKED'
        : version.totalBytes > budget
          ? 'EXPORT_TOO_LARGE'
          : null;
    if (reason) {
      leftOut.push({ ...about, reason });
      continue;
    }
    budget -= version.totalBytes;
    // Several attached versions may share a name (two versions of one skill, or two skills of one
    // name): each gets a folder of its own, numbered until free, so no file overwrites another.
    let folder = version.name;
    if (folders.has(folder)) folder = `${version.name}-v${version.number}`;
    for (let n = 2; folders.has(folder); n += 1) folder = `${version.name}-v${version.number}-${n}`;
    folders.add(folder);
    const rows = await ex
      .select({
        path: skillVersionFiles.path,
        sha256: skillVersionFiles.sha256,
        content: skillVersionFiles.content,
      })
      .from(skillVersionFiles)
      .where(eq(skillVersionFiles.versionId, version.id));
    // Bytes deleted since the version row was read: left out, never exported as empty files.
    if (rows.some((r) => r.content === null)) {
      folders.delete(folder);
      budget += version.totalBytes;
      leftOut.push({ ...about, reason: 'BYTES_DELETED' });
      continue;
    }
    for (const r of rows)
      files.push({ path: `skills/${folder}/${r.path}`, bytes: new Uint8Array(r.content ?? Buffer.alloc(0)) });
    included.push({
      ...about,
      folder: `skills/${folder}/`,
      package_sha256: version.packageSha256,
      files: rows.map((r) => ({ path: r.path, sha256: r.sha256 })).sort((a, b) => (a.path < b.path ? -1 : 1)),
    });
  }
  const manifest = {
    task_id: task.id,
    campaign_id: task.campaignId,
    lease_id: leaseId,
    deliveries_recorded: deliveriesRecorded,
    skills: included,
    left_out: leftOut,
    note: UNTRUSTED_NOTE,
  };
  files.push({ path: 'MANIFEST.json', bytes: text(`${JSON.stringify(manifest, null, 2)}\n`) });
  const zip = buildZip(task.id, files);
  return { zip, sha256: sha256(zip), manifest };
}
