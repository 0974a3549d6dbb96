/**
 * Composing a superchallenge (docs/arena.md, "Superchallenges"): two to four existing SOLO
 * challenge versions become one new package, laid out exactly like an operator's folder
 * (challenge.json, world/…, sources/…), so the same validator and loader take it. Pure: nothing
 * here reads the database.
 *
 * Part k keeps its meaning under a prefix: its world files move under `part-k/`, its source ids,
 * rubric ids and artifact names gain `pk-`, and every check that names one of them is rewritten
 * with it, so a part scores in the composition exactly as it scores alone.
 */
import { ARENA_TOOL_NAMES, type Challenge, type Check, type LoadedChallenge } from '../challenges/index.ts';
import type { StoredChallengeFile } from '../tables.ts';

export type Composition = 'SEQUENCE' | 'TEAM_SPLIT';

export interface ComposedPart {
  challengeId: string;
  version: number;
  loaded: LoadedChallenge;
}

export interface ComposeInput {
  challengeId: string;
  title: string;
  statement?: string | undefined;
  composition: Composition;
  timeLimitMinutes?: number | undefined;
  parts: ComposedPart[];
}

/** The longest run a challenge may state (challenge.json `time_limit_minutes`). */
export const MAX_TIME_LIMIT_MINUTES = 60;
/** Superchallenges are new challenge ids, so each is version 1. */
export const SUPERCHALLENGE_VERSION = 1;
const SOURCES_DIR = 'sources/';
const LAB = 'lab://';
const ROLES = ['A', 'B', 'C', 'D'] as const;

export const partPrefix = (k: number) => `p${k}-`;
export const partFolder = (k: number) => `part-${k}`;

/** A part's check with every name it holds moved under the part's prefix. */
function rewriteCheck(check: Check, k: number, sourceIds: ReadonlySet<string>): Check {
  const p = partPrefix(k);
  const dir = `${partFolder(k)}/`;
  // A string that names one of the part's sources (json_field_equals on /source_id, an
  // evidence token) names it by its new id.
  const named = (s: string) => (sourceIds.has(s) ? p + s : s);
  switch (check.type) {
    case 'quote_in_source':
    case 'json_equals':
      return { ...check, artifact: p + check.artifact };
    case 'json_field_equals':
      return {
        ...check,
        artifact: p + check.artifact,
        value: typeof check.value === 'string' ? named(check.value) : check.value,
      };
    case 'json_field_mentions_all':
      return { ...check, artifact: p + check.artifact, tokens: check.tokens.map(named) };
    case 'sandbox_passes':
      return { ...check, entry: dir + check.entry };
    case 'file_unchanged':
      return { ...check, paths: check.paths.map((path) => dir + path) };
    case 'message_present':
      // Parts are SOLO, so this never occurs; a TEAM part is refused before composing.
      return check;
  }
}

function artifactsOf(c: Challenge): string[] {
  const names = c.verifier.rubric.flatMap((line) => ('artifact' in line.check ? [line.check.artifact] : []));
  return [...new Set(names)];
}

/** The paragraph that tells an agent how a part's names read in the composition. */
function namesNote(c: Challenge, k: number): string {
  const p = partPrefix(k);
  const code = (s: string) => `\`${s}\``;
  const lines = [`Names in this part: its world files are under ${code(`${partFolder(k)}/`)}`];
  if (c.world.sources.length > 0) {
    lines.push(
      `its sources are ${c.world.sources.map((s) => `${code(s.id)} → ${code(p + s.id)}`).join(', ')}`,
    );
  }
  const artifacts = artifactsOf(c);
  if (artifacts.length > 0) {
    lines.push(`hand in ${artifacts.map((a) => `${code(a)} as ${code(p + a)}`).join(', ')}`);
  }
  return `> ${lines.join('; ')}. Where the text below names a source id or an artifact, use the new name; a path in the text is relative to ${code(`${partFolder(k)}/`)}.`;
}

function composeStatement(input: ComposeInput): string {
  const n = input.parts.length;
  const intro =
    input.statement?.trim() ||
    (input.composition === 'SEQUENCE'
      ? `A sequence of ${n} challenges, worked one after the other in one run.`
      : `A team challenge of ${n} parts, one part per member.`);
  const how =
    input.composition === 'SEQUENCE'
      ? `**Superchallenge (SEQUENCE of ${n} parts).** Work every part below; each part is scored by its own rubric lines (ids \`p1-…\`, \`p2-…\`) and the score is their sum. Call \`result_verify\` once, after every part is handed in: it ends the run.`
      : `**Superchallenge (TEAM_SPLIT, team of ${n}).** ${input.parts
          .map((_, i) => `Role ${ROLES[i]} works part ${i + 1}`)
          .join(
            '; ',
          )}. Use \`message_append\` to coordinate; any member may hand in artifacts. Call \`result_verify\` once, after every part is handed in: it ends the run for the whole team.`;
  const sections = input.parts.map((part, i) => {
    const k = i + 1;
    const c = part.loaded.challenge;
    const role = input.composition === 'TEAM_SPLIT' ? `\n\n**Role ${ROLES[i]} works this part.**` : '';
    return `## Part ${k}: ${c.title} (${c.id} v${c.version})${role}\n\n${namesNote(c, k)}\n\n${c.statement}`;
  });
  return [intro, how, ...sections].join('\n\n');
}

/** The manifest of the composition: still to be validated like any package. */
function composeManifest(input: ComposeInput): Challenge {
  const parts = input.parts.map((part) => part.loaded.challenge);
  const tools = new Set(parts.flatMap((c) => c.allowed_tools));
  if (input.composition === 'TEAM_SPLIT') tools.add('message_append');
  const summed = parts.reduce((sum, c) => sum + c.time_limit_minutes, 0);
  return {
    id: input.challengeId,
    version: SUPERCHALLENGE_VERSION,
    title: input.title,
    statement: composeStatement(input),
    mode: input.composition === 'SEQUENCE' ? 'SOLO' : 'TEAM',
    ...(input.composition === 'TEAM_SPLIT' ? { team_size: parts.length } : {}),
    time_limit_minutes: input.timeLimitMinutes ?? Math.min(MAX_TIME_LIMIT_MINUTES, summed),
    allowed_tools: ARENA_TOOL_NAMES.filter((tool) => tools.has(tool)),
    world: {
      files: 'world',
      sources: parts.flatMap((c, i) =>
        c.world.sources.map((s) => ({
          id: partPrefix(i + 1) + s.id,
          title: s.title,
          // Unique per part, so lab.fetch by url finds the part's own copy.
          url: `${LAB}${partFolder(i + 1)}/${s.url.slice(LAB.length)}`,
          file: `${SOURCES_DIR}${partFolder(i + 1)}/${s.file.slice(SOURCES_DIR.length)}`,
          kind: s.kind,
        })),
      ),
    },
    verifier: {
      rubric: parts.flatMap((c, i) => {
        const ids = new Set(c.world.sources.map((s) => s.id));
        return c.verifier.rubric.map((line) => ({
          id: partPrefix(i + 1) + line.id,
          points: line.points,
          description: `Part ${i + 1}: ${line.description}`,
          check: rewriteCheck(line.check, i + 1, ids),
        }));
      }),
    },
  };
}

/**
 * The composed package's files, challenge.json first then by path (the order the package hash
 * and the registry read them in does not matter; this one lets SQL find the manifest at [0]).
 */
export function composePackage(input: ComposeInput): StoredChallengeFile[] {
  const manifest = composeManifest(input);
  const files: StoredChallengeFile[] = [];
  input.parts.forEach((part, i) => {
    const dir = partFolder(i + 1);
    for (const file of part.loaded.worldFiles)
      files.push({ path: `world/${dir}/${file.path}`, content: file.content });
    for (const s of part.loaded.challenge.world.sources) {
      const text = part.loaded.sources.get(s.id)?.text ?? '';
      files.push({ path: `${SOURCES_DIR}${dir}/${s.file.slice(SOURCES_DIR.length)}`, content: text });
    }
  });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return [{ path: 'challenge.json', content: `${JSON.stringify(manifest, null, 2)}\n` }, ...files];
}
