import { defineSettings, z } from '../../config/settings.ts';

export interface SkillsSettings {
  /** Whether the skills area is on (CAIRN_SKILLS). */
  skills: boolean;
}

/** Skills (docs/skills.md): on by default, so the quick start shows them; off hides the tools. */
export const skillsSettings = defineSettings({
  env: { CAIRN_SKILLS: z.enum(['on', 'off'], { message: 'must be on or off' }).default('on') },
  read: (e) => ({ skills: e.CAIRN_SKILLS === 'on' }),
});
