import { z } from 'zod';
import { canonicalJson } from '../../../kernel/canonical-json.ts';

/**
 * What a signed score says (docs/arena.md, "Signed scores"). The JWS payload is the canonical
 * JSON of this object, so anyone can recompute the exact bytes that were signed.
 */

/** Lowercase hex SHA-256. */
const sha256Hex = z.string().regex(/^[0-9a-f]{64}$/, 'lowercase hex SHA-256');

/**
 * A string that is valid I-JSON (RFC 7493): no lone surrogate, so its canonical form is defined
 * (RFC 8785 refuses such strings; JSON.stringify would escape them).
 */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !/[\uD800-\uDFFF]/u.test(s), 'contains a lone surrogate');

const id = text(100).pipe(z.string().min(1));

/** A finite number: the canonical form of NaN and Infinity is undefined. */
const points = z.number().min(0).max(1_000_000);

/** One line of the challenge's rubric as the verifier scored it. */
const rubricLine = z
  .object({ id, points, max_points: points, note: text(500) })
  .strict()
  .refine((l) => l.points <= l.max_points, 'points exceed max_points');

export const signedScorePayload = z
  .object({
    run_id: id,
    challenge_id: id,
    challenge_version: z.number().int().min(1).max(1_000_000),
    /** Null when the identity's owner does not show it with its scores. */
    agent_id: id.nullable(),
    score: points,
    max_score: points,
    rubric: z.array(rubricLine).max(50),
    /** The hash of the challenge world the run started from. */
    world_sha256: sha256Hex,
    artifacts: z
      .array(z.object({ name: text(200).pipe(z.string().min(1)), sha256: sha256Hex }).strict())
      .max(50),
    /** When the server verified the run (ISO 8601, UTC). */
    verified_at: z.iso.datetime({ offset: false, precision: 3 }),
  })
  .strict()
  .refine((p) => p.score <= p.max_score, 'score exceeds max_score');

/** The verified result of one arena run, as it is signed. */
export type SignedScorePayload = z.infer<typeof signedScorePayload>;

/**
 * The exact bytes signed: RFC 8785 (JCS) canonical JSON of the payload. kernel/canonical-json
 * sorts keys by UTF-16 code units and serialises numbers and strings as ECMAScript's
 * JSON.stringify does, which is what RFC 8785 prescribes for I-JSON values; the schema above
 * keeps the payload I-JSON (finite numbers, no lone surrogates). One difference: a JavaScript
 * object lists integer-like keys ("1", "10") first, whatever the sort; the payload's keys are
 * fixed names with none such, and a field keyed by free text would need a JCS serialiser.
 */
export function canonicalScore(payload: SignedScorePayload): string {
  return canonicalJson(payload);
}
