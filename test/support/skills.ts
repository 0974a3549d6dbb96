import { type Member, ok } from './campaigns.ts';

/** Helpers for skills tests: published versions made through the real tools. */

let counter = 0;

/** A skill name no other test of the run uses (1-64 lowercase letters, digits, single hyphens). */
export function uniqueSkillName(prefix = 'skill'): string {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}`;
}

/** A SKILL.md body of about `chars` characters, so reading it takes several small windows. */
export function longBody(chars = 1_500): string {
  const line = 'Quote each source exactly and name the page it came from.\n';
  return `# Steps\n\n${line.repeat(Math.ceil(chars / line.length))}`;
}

/**
 * Publishes a skill as `m` (a draft with SKILL.md holding `body`, then a version) and answers
 * its version_id and name.
 */
export async function publishSkill(
  m: Member,
  opts: { name?: string; body?: string; description?: string } = {},
): Promise<{ versionId: string; skillId: string; name: string; skillMd: string }> {
  const name = opts.name ?? uniqueSkillName();
  const description = opts.description ?? 'Check quotations against their sources.';
  const draft = await ok(m, 'skill_draft_create', { name, description });
  const skillMd = `---\nname: ${name}\ndescription: ${description}\n---\n\n${opts.body ?? longBody()}`;
  const put = await ok(m, 'skill_draft_file_put', {
    draft_id: draft.draft_id,
    path: 'SKILL.md',
    content: skillMd,
    revision: draft.revision,
  });
  const version = await ok(m, 'skill_version_publish', { draft_id: draft.draft_id, revision: put.revision });
  return { versionId: version.version_id as string, skillId: version.skill_id as string, name, skillMd };
}

/** The skill context JSON strings. */
export const campaignContext = (campaignId: string) =>
  JSON.stringify({ scope: 'CAMPAIGN', campaign_id: campaignId });
export const taskContext = (taskId: string) => JSON.stringify({ scope: 'TASK', task_id: taskId });
