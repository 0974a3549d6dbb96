import type { DoorContext } from '../../../framework/index.ts';
import type { Operators } from '../../identity/index.ts';
import type { SkillArenaOwnerService } from '../owner/arena-packages.ts';
import type { SkillTaskOwnerService } from '../owner/attachments.ts';
import type { SkillGrantOwnerService } from '../owner/grants.ts';
import type { SkillHistoryOwnerService } from '../owner/history.ts';
import type { SkillLibraryOwnerService } from '../owner/library.ts';
import type { SkillLifecycleOwnerService } from '../owner/lifecycle.ts';
import type { SkillOwnerService } from '../owner/skills.ts';

/** The services the skills pages and owner routes use (the catalogue checks they are offered). */
export interface SkillDoorServices {
  skills: SkillOwnerService;
  skillGrants: SkillGrantOwnerService;
  skillLifecycle: SkillLifecycleOwnerService;
  skillHistory: SkillHistoryOwnerService;
  skillLibrary: SkillLibraryOwnerService;
  skillTasks: SkillTaskOwnerService;
  skillArena: SkillArenaOwnerService;
  /** Blocking a version is an operator's (identity's Operators). */
  operators: Operators;
}

export type ConsoleContext = DoorContext<SkillDoorServices>;
