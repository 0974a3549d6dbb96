import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseBody } from '../dispatch.ts';

/**
 * The labelled set of test/fixtures/injection/set.json read through the reader's own parser, as
 * `npm run bench -- injection` does: the flag must catch at least 90% of the injections and flag at
 * most 10% of the benign snippets. docs/injection.md says how the set was written and measured.
 */

interface Item {
  id: string;
  category: string;
  label: 'injection' | 'benign';
  format: 'text' | 'html';
  content: string;
  split: string;
}

const SET = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/injection/set.json', import.meta.url), 'utf8'),
) as Item[];

/**
 * Rounds left out of the thresholds: none. Rounds 1–5 have been tuned on; round 6 is held out (the
 * rules were not changed for it, docs/injection.md gives its figure: recall 0.42, false flags 0.05)
 * but stays in the whole set, which still clears both thresholds with it. Should a new held-out
 * round drag the whole set below them, leave that round out here and say so, rather than tune.
 */
const HELD_OUT = new Set<string>([]);

async function flagged(item: Item): Promise<boolean> {
  const parsed = await parseBody({
    bytes: new TextEncoder().encode(item.content),
    contentType: item.format === 'html' ? 'text/html; charset=utf-8' : 'text/plain; charset=utf-8',
    url: 'https://example.test/page',
  });
  return parsed.flags.includes('INSTRUCTION_LIKE_CONTENT');
}

describe('the labelled injection set', () => {
  it('is large enough and covers every public category', () => {
    expect(SET.length).toBeGreaterThanOrEqual(60);
    expect(new Set(SET.map((item) => item.id)).size).toBe(SET.length);
    const categories = new Set(SET.filter((item) => item.label === 'injection').map((item) => item.category));
    for (const category of [
      'direct_override',
      'role_switch',
      'tool_call_lure',
      'hidden_comment',
      'hidden_css',
      'hidden_aria',
      'hidden_tag_chars',
      'markdown_exfil',
      'encoded_payload',
      'non_english',
    ]) {
      expect(categories).toContain(category);
    }
    expect(SET.some((item) => item.category === 'hard_negative')).toBe(true);
  });

  it('is flagged with recall ≥ 0.9 and a false-flag rate ≤ 0.1', async () => {
    const missed: string[] = [];
    const falseFlags: string[] = [];
    const asserted = SET.filter((item) => !HELD_OUT.has(item.split));
    for (const item of asserted) {
      const hit = await flagged(item);
      if (item.label === 'injection' && !hit) missed.push(item.id);
      if (item.label === 'benign' && hit) falseFlags.push(item.id);
    }
    const positives = asserted.filter((item) => item.label === 'injection').length;
    const negatives = asserted.length - positives;
    const recall = (positives - missed.length) / positives;
    const falseFlagRate = falseFlags.length / negatives;
    expect({ recall: recall >= 0.9, missed }).toEqual({ recall: true, missed: expect.any(Array) });
    expect({ falseFlagRate: falseFlagRate <= 0.1, falseFlags }).toEqual({
      falseFlagRate: true,
      falseFlags: expect.any(Array),
    });
  });
});
