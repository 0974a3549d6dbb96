import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../kernel/canonical-json.ts';
import { sampleScore } from './fixtures.ts';
import { canonicalScore, signedScorePayload } from './payload.ts';

describe('the signed payload', () => {
  it('is canonical JSON: keys sorted at every level, no whitespace, numbers as ECMAScript prints them', () => {
    // Built in another key order than the canonical one, at every level.
    const score = sampleScore();
    const shuffled = Object.fromEntries(Object.entries(score).reverse()) as typeof score;
    shuffled.rubric = score.rubric.map((l) => ({
      note: l.note,
      points: l.points,
      max_points: l.max_points,
      id: l.id,
    }));
    expect(canonicalScore(shuffled)).toBe(
      '{"agent_id":"agt_01JZ8Y0V6M1C9Q4T5W6X7Y8Z9B",' +
        `"artifacts":[{"name":"answer.json","sha256":"${'b'.repeat(64)}"}],` +
        '"challenge_id":"quote-hunt","challenge_version":2,"max_score":10,' +
        '"rubric":[{"id":"quote-found","max_points":5,"note":"verbatim, with its source","points":5},' +
        '{"id":"citation","max_points":5,"note":"offset off by one line","points":2.5}],' +
        '"run_id":"arn_01JZ8Y0V6M1C9Q4T5W6X7Y8Z9A","score":7.5,' +
        `"verified_at":"2026-01-01T00:00:00.000Z","world_sha256":"${'a'.repeat(64)}"}`,
    );
    expect(canonicalScore(shuffled)).toBe(canonicalScore(score));
  });

  it('sorts keys by UTF-16 code units, as RFC 8785 section 3.2.3 does', () => {
    // The RFC's example names, less "1": JavaScript objects list integer-like keys first, so
    // kernel/canonical-json differs from RFC 8785 there; the payload has no such key (below).
    const names = ['\u20ac', '\r', '\ufb33', '\ud83d\ude00', '\u0080', '\u00f6'];
    const text = canonicalJson(Object.fromEntries(names.map((n) => [n, 0])));
    const order = ['\r', '\u0080', '\u00f6', '\u20ac', '\ud83d\ude00', '\ufb33'];
    expect(text).toBe(`{${order.map((n) => `${JSON.stringify(n)}:0`).join(',')}}`);
  });

  it('has no integer-like key at any level, so its canonical form is exactly RFC 8785', () => {
    const keys = [
      ...Object.keys(signedScorePayload.shape),
      ...Object.keys(sampleScore().rubric[0] ?? {}),
      ...Object.keys(sampleScore().artifacts[0] ?? {}),
    ];
    expect(keys.length).toBeGreaterThan(10);
    for (const key of keys) expect(key).toMatch(/^[a-z_0-9]*[a-z_][a-z_0-9]*$/);
  });

  it('prints numbers and escapes strings as RFC 8785 does', () => {
    const text = canonicalScore(
      sampleScore({
        score: 1e-7,
        max_score: 1e6,
        rubric: [{ id: 'é', points: 0.1, max_points: 1, note: '\u0007"\\\n€' }],
      }),
    );
    expect(text).toContain('"score":1e-7');
    expect(text).toContain('"max_score":1000000');
    expect(text).toContain('"points":0.1');
    expect(text).toContain('"note":"\\u0007\\"\\\\\\n€"');
    expect(text).toContain('"id":"é"');
  });

  it('refuses what has no canonical form or breaks the shape', () => {
    const bad = [
      sampleScore({ score: Number.POSITIVE_INFINITY }),
      sampleScore({ score: Number.NaN }),
      sampleScore({ rubric: [{ id: 'x', points: 0, max_points: 1, note: 'lone \ud800 surrogate' }] }),
      sampleScore({ score: 11 }),
      sampleScore({ world_sha256: 'A'.repeat(64) }),
      sampleScore({ verified_at: '2026-01-01T00:00:00+02:00' }),
      { ...sampleScore(), extra: true },
    ];
    for (const payload of bad) expect(signedScorePayload.safeParse(payload).success).toBe(false);
    expect(signedScorePayload.safeParse(sampleScore({ agent_id: null })).success).toBe(true);
    // A paired surrogate (an emoji) is fine.
    expect(
      signedScorePayload.safeParse(
        sampleScore({ rubric: [{ id: 'x', points: 0, max_points: 1, note: '\ud83d\ude00' }] }),
      ).success,
    ).toBe(true);
  });
});
