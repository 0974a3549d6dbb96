import { z } from 'zod';
import { CONTROLS, csrf, line, optional, required } from '../../../web/console/fields.ts';
import { idPattern } from '../../../web/console/id-params.ts';
import { MAX_MINOR } from '../../funds/index.ts';
import { MAX_STIX_SOURCES, TLP_LEVELS, type TlpLevel } from '../../research/index.ts';
import { CAMPAIGN_LIMITS } from '../limits.ts';

const MAX_SCOPES = 50;

/**
 * The campaign forms of the console, bounded like the tools' arguments; messages are written for
 * the person who filled the form in. The domain checks everything again (it is one door of
 * several), so these only turn form strings into the typed input and say what is wrong.
 */

export const CAMPAIGN_ID = idPattern('cmp');
export const AGENT_ID = idPattern('agt');
export const TASK_ID = idPattern('task');
export const MESSAGE_ID = idPattern('msg');

const agentId = (message: string) => z.string().trim().regex(AGENT_ID, message);

export const VISIBILITY_MODES = ['SHARED', 'TASK_SCOPED', 'BLIND_EXPERIMENT', 'OWNER_ONLY_RESULTS'] as const;
export const ROLES = ['COORDINATOR', 'PARTICIPANT'] as const;
export const COMMENT_TYPES = ['NOTE', 'QUESTION', 'ANSWER'] as const;
/** Who may take a task (its conditions.participation): members claim it, or open pickup too. */
export const TASK_PARTICIPATION = ['CAMPAIGN', 'OPEN'] as const;
/** Units of a task reward on the publish form; points and dollars are never converted. */
export const REWARD_UNITS = ['POINTS', 'USD'] as const;

export const newCampaignForm = z
  .object({
    csrf,
    title: line('a title', 200),
    objective: required('the objective', 4_000),
    budget_amount: z
      .string()
      .trim()
      .max(20)
      .regex(
        /^(?:\d{1,10}(?:\.\d{1,2})?)?$/,
        'Enter the budget as a number, e.g. 250 or 99.50, or leave it empty.',
      )
      .optional(),
    budget_unit: z.enum(['USD', 'POINTS'], 'Choose USD or POINTS as the budget unit.').optional(),
    scopes: z
      .string()
      .max(MAX_SCOPES * 310, 'The scopes are too long.')
      .optional()
      .transform((s) =>
        (s ?? '')
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter(Boolean),
      )
      .pipe(
        z
          .array(z.string().max(300, 'Each scope must be at most 300 characters.'))
          .max(MAX_SCOPES, `At most ${MAX_SCOPES} scopes, one per line.`)
          .refine((l) => l.every((s) => !CONTROLS.test(s)), 'Scopes must not contain control characters.'),
      ),
    allow_agent_publish: z.literal('on').optional(),
    visibility: z.enum(VISIBILITY_MODES, 'Choose a visibility mode.'),
    participation: z.enum(['OPEN', 'APPLICATION'], 'Choose how agents join: OPEN or by application.'),
    coordinator_id: agentId('Choose one of your agents as the first coordinator.'),
  })
  .strict()
  .transform((f) => ({
    coordinatorId: f.coordinator_id,
    campaign: {
      title: f.title,
      objective: f.objective,
      budget: f.budget_amount ? { amount: Number(f.budget_amount), unit: f.budget_unit ?? 'USD' } : undefined,
      scopes: f.scopes,
      allow_agent_publish: f.allow_agent_publish === 'on',
      visibility: f.visibility,
      participation: f.participation,
    },
  }));

/** One of the owner's agents from the select, or another agent's id typed in: exactly one. */
export const inviteForm = z
  .object({
    csrf,
    own_agent: z.union([z.literal(''), agentId('Choose one of your agents from the list.')]).optional(),
    agent_id: z
      .union([z.literal(''), agentId('An agent id looks like agt_ followed by 26 letters and digits.')])
      .optional(),
    role: z.enum(ROLES, 'Choose the role: COORDINATOR or PARTICIPANT.'),
  })
  .strict()
  .refine((f) => Boolean(f.own_agent) !== Boolean(f.agent_id), {
    message: 'Choose one of your agents, or type the id of another owner’s agent: one of the two.',
  })
  .transform((f) => ({ agentId: (f.own_agent || f.agent_id) as string, role: f.role }));

/** The condition terms the form asks for; an empty one is left out, so the domain reports INCOMPLETE. */
export const taskForm = z
  .object({
    csrf,
    title: line('a title', 200),
    objective: required('the objective', 4_000),
    acceptance: required('the acceptance criteria', 4_000),
    available_data: optional('the available data', 2_000),
    authorized_scope: optional('the authorised scope', 2_000),
    deliverable: optional('the deliverable', 2_000),
    reproduction_steps: optional('the reproduction steps', 2_000),
    time_budget_minutes: z
      .string()
      .trim()
      .regex(/^(?:\d{1,5})?$/, 'Enter the time budget as a whole number of minutes (1-10080).')
      .optional()
      .transform((s) => (s ? Number(s) : undefined))
      .pipe(
        z
          .number()
          .min(1, 'The time budget is at least 1 minute.')
          .max(10_080, 'The time budget is at most 10080 minutes (a week).')
          .optional(),
      ),
    stop_conditions: optional('the stop conditions', 2_000),
    reviewer: optional('the reviewer', 2_000),
    reward_amount: z
      .string()
      .trim()
      .max(20, 'The reward amount is too long.')
      .regex(
        /^(?:\d{1,12}(?:\.\d{1,2})?)?$/,
        'Enter the reward as a number (200 points, or 12.50 dollars), or leave it empty.',
      )
      .optional(),
    reward_unit: z.enum(['', ...REWARD_UNITS], 'Choose no reward, points or USD.').optional(),
    // Who may take it (conditions.participation) and whether its terms may be shown publicly
    // (conditions.publish_contract). A public board lists a task only with OPEN and the contract
    // published; OPEN alone is a valid condition (docs/boards.md), so it is not refused here.
    participation: z
      .enum(TASK_PARTICIPATION, 'Choose who may take the task: campaign members only, or open pickup.')
      .optional(),
    publish_contract: z.literal('on', 'Tick “Publish the contract” or leave it empty.').optional(),
  })
  .strict()
  .superRefine((f, issues) => {
    const problem = rewardProblem(f.reward_amount ?? '', f.reward_unit ?? '');
    if (problem) issues.addIssue({ code: 'custom', message: problem, path: ['reward_amount'] });
  })
  .transform(
    ({
      csrf: _csrf,
      title,
      objective,
      acceptance,
      reward_amount,
      reward_unit,
      participation,
      publish_contract,
      ...terms
    }) => ({
      title,
      objective,
      acceptance,
      conditions: {
        ...Object.fromEntries(Object.entries(terms).filter(([, v]) => v !== undefined)),
        participation: participation ?? 'CAMPAIGN',
        publish_contract: publish_contract === 'on',
      },
      // What rewardOf takes; the route adds the fee. Empty: no reward.
      rewardAsked: reward_amount
        ? reward_unit === 'POINTS'
          ? { rewardPoints: Number(reward_amount) }
          : { rewardUsd: Number(reward_amount) }
        : {},
    }),
  );

/**
 * What is wrong with the reward fields, in the form's words, or null. The amount and the unit go
 * together; the bounds are those of the task_publish tool (reward_points, reward_usd).
 */
function rewardProblem(amount: string, unit: string): string | null {
  if (!amount && !unit) return null;
  if (!unit) return 'Choose the reward’s unit (points or USD), or leave the reward amount empty.';
  if (!amount) return 'Enter the reward amount, or choose no reward.';
  const n = Number(amount);
  if (n <= 0) return 'The reward must be more than zero, or leave it empty for no reward.';
  if (unit === 'POINTS' && !Number.isInteger(n)) return 'A reward in points is a whole number.';
  const max = unit === 'POINTS' ? MAX_MINOR : MAX_MINOR / 100;
  if (n > max)
    return `A reward is at most ${max.toLocaleString('en-US')} ${unit === 'POINTS' ? 'points' : 'dollars'}.`;
  return null;
}

/** Cancelling a task from the campaign page: which task, and why (the ledger records the reason). */
export const cancelTaskForm = z
  .object({
    csrf,
    task_id: z.string().trim().regex(TASK_ID, 'That is not a task of this campaign.'),
    reason: required('the reason for cancelling', 2_000),
  })
  .strict()
  .transform((f) => ({ taskId: f.task_id, reason: f.reason }));

/** Stopping the campaign: the reason is optional and shown to members on the ledger. */
export const stopCampaignForm = z
  .object({ csrf, reason: optional('the reason for stopping', 500) })
  .strict()
  .transform((f) => ({ reason: f.reason }));

/** Closing the campaign: the reason is optional and shown to members on the ledger. */
export const closeCampaignForm = z
  .object({
    csrf,
    reason: optional('the reason for closing', 500),
    confirm: z.literal('on', 'Tick the box to confirm: a closed campaign cannot be reopened.'),
  })
  .strict()
  .transform((f) => ({ reason: f.reason }));

export const commentForm = z
  .object({
    csrf,
    type: z.enum(COMMENT_TYPES, 'Choose the message type: NOTE, QUESTION or ANSWER.'),
    // The domain applies the remaining content rules (bytes, control characters, credentials).
    content: required('a message', CAMPAIGN_LIMITS.messageContent.maxChars),
    addressed_to: z
      .union([z.literal(''), agentId('Choose a member to address, or the whole campaign.')])
      .optional(),
  })
  .strict()
  .transform((f) => ({ type: f.type, content: f.content, addressed_to: f.addressed_to || undefined }));

export const decisionForm = z
  .object({ csrf, decision: z.enum(['accept', 'decline'], 'Press Accept or Decline.') })
  .strict();

export const EVIDENCE_ID = idPattern('evd');
export const FINDING_STATUSES = ['UNREVIEWED', 'SUPPORTED', 'CONTESTED', 'INSUFFICIENT_EVIDENCE'] as const;

/** The findings page's research settings: a TLP 2.0 level and whether same-owner reviews count. */
export const findingSettingsForm = z
  .object({
    csrf,
    tlp: z.enum(TLP_LEVELS as readonly [TlpLevel, ...TlpLevel[]], 'Choose one of the TLP 2.0 levels.'),
    allow_same_owner_review: z.literal('on').optional(),
  })
  .strict()
  .transform((f) => ({ tlp: f.tlp, allowSameOwnerReview: f.allow_same_owner_review === 'on' }));

/**
 * The STIX download: the findings ticked (one `evidence_ids` field each) and further evidence
 * ids typed in, separated by commas or spaces; counted once each, 1 to MAX_STIX_SOURCES.
 */
export const stixForm = z
  .object({
    csrf,
    evidence_ids: z
      .union([z.string().max(100), z.array(z.string().max(100)).max(200, 'Too many findings ticked.')])
      .optional(),
    more_ids: z.string().max(3_000, 'The further evidence ids are too long.').optional(),
  })
  .strict()
  .transform((f) => {
    const ticked = f.evidence_ids === undefined ? [] : [f.evidence_ids].flat();
    const typed = (f.more_ids ?? '').split(/[\s,]+/).filter(Boolean);
    return [...new Set([...ticked, ...typed].map((id) => id.trim()))];
  })
  .pipe(
    z
      .array(z.string().regex(EVIDENCE_ID, 'An evidence id looks like evd_ followed by letters and digits.'))
      .min(1, 'Tick at least one finding, or enter an evidence id, to download a STIX bundle.')
      .max(
        MAX_STIX_SOURCES,
        `At most ${MAX_STIX_SOURCES} sources go into one STIX bundle: tick fewer findings or enter fewer ids.`,
      ),
  );
