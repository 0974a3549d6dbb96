import type { Area } from '../../framework/index.ts';
import { skillsCompletionGate } from './completion-gate.ts';
import { skillDoors } from './console/doors.ts';
import { SKILL_ERRORS } from './errors.ts';
import { SkillsExtension } from './extension/catalog.ts';
import { PUBLISHED_SKILL_LIMITS } from './limits.ts';
import { SkillArenaOwnerService } from './owner/arena-packages.ts';
import { SkillTaskOwnerService } from './owner/attachments.ts';
import { SkillGrantOwnerService } from './owner/grants.ts';
import { SkillHistoryOwnerService } from './owner/history.ts';
import { SkillLibraryOwnerService } from './owner/library.ts';
import { SkillLifecycleOwnerService } from './owner/lifecycle.ts';
import { SkillOwnerService } from './owner/skills.ts';
import { type SkillsSettings, skillsSettings } from './settings.ts';
import * as tables from './tables.ts';
import { arenaSkillShare } from './tools/arena-package-tools.ts';
import { attachmentTools } from './tools/attachment-tools.ts';
import { draftTools } from './tools/draft-tools.ts';
import { libraryTools } from './tools/library-tools.ts';
import {
  skillFileBytesGet,
  skillFileGet,
  skillGet,
  skillList,
  skillPackageGet,
} from './tools/version-tools.ts';

export { SCOPES } from './context.ts';
export { SkillArenaOwnerService } from './owner/arena-packages.ts';
export { SkillTaskOwnerService } from './owner/attachments.ts';
export { SkillGrantOwnerService } from './owner/grants.ts';
export { SkillHistoryOwnerService } from './owner/history.ts';
export { SkillLibraryOwnerService } from './owner/library.ts';
export { SkillLifecycleOwnerService } from './owner/lifecycle.ts';
export { SkillOwnerService } from './owner/skills.ts';

/** Why a deployment with CAIRN_SKILLS=off offers no skill tools. */
export const SKILLS_OFF =
  'This deployment turned skills off (CAIRN_SKILLS=off); the operator can turn them on.';

/**
 * Skills (docs/skills.md): Agent Skills packages written as private drafts, published as
 * immutable versions, shared by grant, a campaign's library or a task's attachments, and read
 * under an explicit context.
 */
export const skillsArea = {
  name: 'skills',
  settings: skillsSettings,
  tables,
  errors: SKILL_ERRORS,
  limits: PUBLISHED_SKILL_LIMITS,
  operations: [
    skillList,
    skillGet,
    skillFileGet,
    skillFileBytesGet,
    skillPackageGet,
    ...draftTools,
    ...libraryTools,
    ...attachmentTools,
    arenaSkillShare,
  ],
  switchedOff: (config) => (config.skills ? null : SKILLS_OFF),
  extensions: { completionGate: skillsCompletionGate },
  doors: skillDoors,
  start({ database, clock, secret, config, parser }) {
    const skills = new SkillOwnerService(database, clock, secret, config.skills, parser);
    const requireOn = () => skills.requireOn();
    return {
      services: {
        skillsDeps: { secret, baseUrl: config.baseUrl },
        skills,
        skillGrants: new SkillGrantOwnerService(database, clock, secret, requireOn),
        skillLifecycle: new SkillLifecycleOwnerService(database, clock, requireOn),
        skillHistory: new SkillHistoryOwnerService(database, secret, requireOn),
        skillLibrary: new SkillLibraryOwnerService(database, clock, secret, requireOn),
        skillTasks: new SkillTaskOwnerService(database, clock, requireOn),
        skillArena: new SkillArenaOwnerService(database, clock, secret, requireOn),
      },
      // MCP's Skills extension is declared only where skills are on.
      ...(config.skills ? { skillCatalog: new SkillsExtension(database, clock, secret) } : {}),
    };
  },
} satisfies Area;

type OwnTables = typeof tables;
declare module '../../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

/** The ids this area makes (kernel/ids.ts). */
declare module '../../kernel/ids.ts' {
  interface IdPrefixes {
    /** skills. */
    skl: 'skills';
    /** skill drafts. */
    sdr: 'skills';
    /** skill versions. */
    skv: 'skills';
    /** skill grants. */
    sgr: 'skills';
    /** campaign skills. */
    csk: 'skills';
    /** Arena skill packages. */
    apkg: 'skills';
    /** task skills. */
    tsk: 'skills';
    /** skill usage reports. */
    sur: 'skills';
    /** skill events. */
    sev: 'skills';
  }
}

/** Its settings, joined into Config (config/settings.ts). */
declare module '../../config/settings.ts' {
  interface AreaSettings extends SkillsSettings {}
}
