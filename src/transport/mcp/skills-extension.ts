import type { Caller } from '../../domains/identity/index.ts';
import { SKILLS_EXTENSION, type SkillCatalog } from '../../framework/index.ts';
import { DomainError, errorEnvelope } from '../../kernel/errors.ts';
import { RPC } from './modern-request.ts';

/**
 * MCP's Skills extension (`io.modelcontextprotocol/skills`, SEP-2640), for both eras:
 * `skills/list` and `skills/get` answered from the area's catalog (framework/skill-catalog.ts),
 * and the skills' files through resources/read. Declared only when an area serves skills, with
 * no optional features (no `resources/directory/read`). The answers are era-neutral; modern.ts
 * and server.ts each wrap them in their own envelope.
 */

/** What capabilities declare under `extensions` (an empty object: no optional features). */
export function skillsCapability(skills: SkillCatalog | null): Record<string, object> {
  return skills ? { [SKILLS_EXTENSION]: {} } : {};
}

export const SKILL_METHODS: ReadonlySet<string> = new Set(['skills/list', 'skills/get']);

/**
 * Both answers depend on who asks (grants, leases, memberships) and change when those do:
 * private, and short. The files a URI names never change (versions are immutable). (Read only
 * by 2026-07-28 clients; earlier ones ignore the two fields.)
 */
const CACHE = { ttlMs: 60_000, cacheScope: 'private' } as const;

export type SkillsAnswer =
  | { result: Record<string, unknown> }
  | { error: { code: number; message: string; data?: Record<string, unknown> } };

/** The answer to skills/list or skills/get for this caller. */
export async function answerSkillMethod(
  method: string,
  params: Record<string, unknown>,
  skills: SkillCatalog,
  caller: Caller,
): Promise<SkillsAnswer> {
  if (method === 'skills/list') {
    const cursor = params.cursor;
    if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length > 2_000)) {
      return invalid('Invalid params: cursor is the nextCursor of the last page.');
    }
    try {
      const page = await skills.list(caller, cursor);
      return {
        result: {
          skills: page.skills,
          ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
          ...CACHE,
        },
      };
    } catch (caught) {
      if (caught instanceof DomainError && caught.code === 'CURSOR_INVALID') {
        return invalid(`Invalid params: ${caught.message}`, {
          ...errorEnvelope(caught.code, caught.message),
        });
      }
      throw caught;
    }
  }
  const uri = params.uri;
  if (typeof uri !== 'string')
    return invalid('Invalid params: skills/get needs params.uri, the URI of a SKILL.md.');
  const skill = await skills.get(uri, caller);
  return skill ? { result: { skill, ...CACHE } } : unknownSkill(uri);
}

/** A skill file for resources/read, or null when the URI is not the catalog's to answer. */
export async function readSkillFile(
  uri: string,
  skills: SkillCatalog | null,
  caller: Caller,
): Promise<SkillsAnswer | null> {
  if (!skills?.owns(uri)) return null;
  const content = await skills.read(uri, caller);
  return content ? { result: { contents: [content], ...CACHE } } : unknownSkill(uri);
}

function invalid(message: string, data?: Record<string, unknown>): SkillsAnswer {
  return { error: { code: RPC.invalidParams, message, ...(data ? { data } : {}) } };
}

/**
 * -32602 with the URI, as for an unknown resource: the same for a skill that does not exist and
 * one the caller may not read, so nothing is learned of what it may not see.
 */
function unknownSkill(uri: string): SkillsAnswer {
  const shown = uri.slice(0, 200);
  return invalid(`Skill not found: ${shown}. skills/list names the skills you may read now.`, {
    uri,
    ...errorEnvelope('NOT_FOUND', `No skill ${shown} you may read.`, { uri: shown }),
  });
}
