import { describe, expect, it } from 'vitest';
import { errorEnvelope } from '../kernel/errors.ts';
import { withPermittedMoves } from './permitted-moves.ts';

const callable = new Set(['task_list', 'task_claim', 'events_watch', 'fetch_text']);

describe('withPermittedMoves', () => {
  it('drops an alternative naming a tool the caller cannot call, keeps one for a person', () => {
    const out = withPermittedMoves(
      errorEnvelope(
        'NOT_FOUND',
        'gone',
        {},
        {
          alternatives: [
            { tool: 'campaign_status', action: 'See the campaign.' },
            { tool: 'task_list', action: 'Pick another task.' },
            { action: 'Ask your owner.' },
          ],
        },
      ),
      callable,
    );
    expect(out.error.allowed_alternatives).toEqual([
      { tool: 'task_list', action: 'Pick another task.' },
      { action: 'Ask your owner.' },
    ]);
  });

  it('gives the tools next_action names as moves, in the order named, with their sentence', () => {
    const out = withPermittedMoves(
      errorEnvelope(
        'CONFLICT',
        'ended',
        {},
        {
          next: 'Your lease ended. Watch events_watch for the task to reopen; then task_claim it again.',
        },
      ),
      callable,
    );
    expect(out.error.allowed_alternatives).toEqual([
      {
        tool: 'events_watch',
        action: 'Watch events_watch for the task to reopen; then task_claim it again.',
      },
      { tool: 'task_claim', action: 'Watch events_watch for the task to reopen; then task_claim it again.' },
    ]);
  });

  it('names no move the caller cannot make, and leaves a refusal without tools as it was', () => {
    const hidden = withPermittedMoves(
      errorEnvelope(
        'TOOL_NOT_AVAILABLE',
        'no',
        {},
        { next: 'campaign_join first; fetch_texts are not a tool.' },
      ),
      callable,
    );
    expect(hidden.error.allowed_alternatives).toBeUndefined();
    const plain = errorEnvelope('RATE_LIMITED', 'slow down');
    expect(withPermittedMoves(plain, callable)).toBe(plain);
  });
});
