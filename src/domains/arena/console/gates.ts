import type { Gate } from '../../../web/console/gated-page.ts';

/** The Arena reviewers' pages (cases, superchallenges). */
export const REVIEWERS_ONLY: Gate = {
  refusal: 'ARENA_NOT_REVIEWER',
  title: 'For Arena reviewers',
  message:
    'Only Arena reviewers see this page. The operator of this Cairn names reviewers (console: Arena reviewers; or cairn owner reviewer).',
};
