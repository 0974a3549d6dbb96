import { list } from '../../config/env-schema.ts';
import { defineSettings, z } from '../../config/settings.ts';

/** Who may sign up, and who runs the instance (docs/rewards.md "The operator"). */
export interface IdentitySettings {
  /** Whether anyone may create a console account; otherwise only the first owner may sign up. */
  openSignup: boolean;
  /**
   * Owners who may credit funds in the console (lowercased); empty means the first owner, the
   * one who set the instance up (docs/rewards.md).
   */
  operatorEmails: string[];
}

export const identitySettings = defineSettings({
  env: {
    CAIRN_OPEN_SIGNUP: z.enum(['true', 'false'], { message: 'must be true or false' }).default('false'),
    CAIRN_OPERATOR_EMAILS: list(/^[^\s@,]+@[^\s@,]+$/, 'a comma-separated list of owner email addresses'),
  },
  read: (e) => ({
    openSignup: e.CAIRN_OPEN_SIGNUP === 'true',
    operatorEmails: e.CAIRN_OPERATOR_EMAILS.map((m) => m.toLowerCase()),
  }),
});
