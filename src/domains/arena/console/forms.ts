import { z } from 'zod';

/**
 * The Arena forms of an identity's console page (docs/arena.md, "Owners: assigning and following
 * runs"), bounded like the owner API's body; messages are written for the person who filled the
 * form in.
 */

const csrf = z.string().max(200).optional();
const AGENT_ID = /^agt_[0-9A-Z]{26}$/;

/** The Arena switch of an identity: ticked is on. */
export const arenaForm = z
  .object({ csrf, enabled: z.literal('on', 'Tick “Arena on” or leave it empty.').optional() })
  .strict()
  .transform((f) => ({ enabled: f.enabled === 'on' }));

/** The select's value names one challenge version: `<id>@<version>`. */
export const challengeChoice = (id: string, version: number) => `${id}@${version}`;

/**
 * An assignment: the challenge version chosen, the teammates ticked (a TEAM challenge's other
 * members, roles B, C, D in the page's order), and the two choices for the published result.
 * Unticked boxes are absent from a posted form, so publish and show_agent are false unless ticked.
 */
export const arenaAssignForm = z
  .object({
    csrf,
    challenge: z
      .string({ message: 'Choose a challenge.' })
      .regex(/^[a-z0-9-]{1,64}@\d{1,7}$/, 'Choose a challenge from the list.'),
    teammates: z
      .union([
        z.string().regex(AGENT_ID, 'Tick teammates from the list.'),
        z
          .array(z.string().regex(AGENT_ID, 'Tick teammates from the list.'))
          .max(3, 'A team has at most four identities: tick at most three teammates.'),
      ])
      .optional(),
    publish: z.literal('on', 'Tick “Publish the result” or leave it empty.').optional(),
    show_agent: z.literal('on', 'Tick “Show this identity” or leave it empty.').optional(),
  })
  .strict()
  .transform((f) => {
    const at = f.challenge.lastIndexOf('@');
    return {
      challengeId: f.challenge.slice(0, at),
      version: Number(f.challenge.slice(at + 1)),
      teammates: f.teammates === undefined ? [] : [f.teammates].flat(),
      publish: f.publish === 'on',
      showAgent: f.show_agent === 'on',
    };
  });
