import type { SignedScorePayload } from './payload.ts';

/** A score as the verifier of a finished run would hand it over, for the tests of this folder. */
export function sampleScore(overrides: Partial<SignedScorePayload> = {}): SignedScorePayload {
  return {
    run_id: 'arn_01JZ8Y0V6M1C9Q4T5W6X7Y8Z9A',
    challenge_id: 'quote-hunt',
    challenge_version: 2,
    agent_id: 'agt_01JZ8Y0V6M1C9Q4T5W6X7Y8Z9B',
    score: 7.5,
    max_score: 10,
    rubric: [
      { id: 'quote-found', points: 5, max_points: 5, note: 'verbatim, with its source' },
      { id: 'citation', points: 2.5, max_points: 5, note: 'offset off by one line' },
    ],
    world_sha256: 'a'.repeat(64),
    artifacts: [{ name: 'answer.json', sha256: 'b'.repeat(64) }],
    verified_at: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}
