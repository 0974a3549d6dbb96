import { describe, expect, it } from 'vitest';
import { allowedAlternatives } from './access.ts';

describe('allowedAlternatives: a refusal inside a run offers only what the challenge allows', () => {
  const list = { tool: 'workspace.list', action: 'See the files.', arguments: { run_id: 'run_1' } };

  it('keeps an alternative whose tool the challenge allows', () => {
    expect(allowedAlternatives(['workspace.list', 'result_verify'], [list])).toEqual([list]);
  });

  it('drops one the challenge does not allow, and falls back to capabilities_describe', () => {
    const kept = allowedAlternatives(['workspace.read', 'result_verify'], [list]);
    expect(kept).toEqual([{ tool: 'capabilities_describe', action: expect.any(String) }]);
  });

  it('keeps advice that names no tool', () => {
    const advice = { action: 'Wait for your teammate.' };
    expect(allowedAlternatives(['result_verify'], [list, advice])).toEqual([advice]);
  });
});
