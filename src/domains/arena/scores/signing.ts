import type { KeyObject } from 'node:crypto';
import { CompactSign, compactVerify, createLocalJWKSet, errors, type JSONWebKeySet } from 'jose';
import { scoreSignatureInvalid } from '../errors.ts';
import { canonicalScore, type SignedScorePayload, signedScorePayload } from './payload.ts';

/** The JWS `typ` of a Cairn signed score, so a score cannot pass for another signed document. */
export const SCORE_JWS_TYPE = 'cairn-score+jws';

/** The longest signed score taken for verification (the payload's lists are bounded well below). */
export const MAX_SIGNED_SCORE_CHARS = 200_000;

/** The key that signs: its kid (RFC 7638 thumbprint) and the Ed25519 private key. */
export interface ScoreSigningKey {
  kid: string;
  privateKey: KeyObject;
}

/**
 * Signs a score: a compact JWS (EdDSA over Ed25519) of its canonical JSON, with the header
 * `{alg: 'EdDSA', kid, typ: 'cairn-score+jws'}`. Throws when the payload is malformed, which is
 * a bug of the caller (the server builds it), not a refusal.
 */
export async function signScore(payload: SignedScorePayload, key: ScoreSigningKey): Promise<string> {
  const checked = signedScorePayload.parse(payload);
  return new CompactSign(new TextEncoder().encode(canonicalScore(checked)))
    .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: SCORE_JWS_TYPE })
    .sign(key.privateKey);
}

/**
 * Verifies a signed score against a JWKS (the issuer's `/.well-known/jwks.json`, retired keys
 * included) and returns its payload. Refuses with SCORE_SIGNATURE_INVALID, naming the reason,
 * when it is not a compact JWS, no key has its kid, the signature does not match (one byte
 * changed anywhere), or the payload is not a canonical Cairn score.
 */
export async function verifyScore(jws: string, jwks: JSONWebKeySet): Promise<SignedScorePayload> {
  const compact = jws.trim();
  if (compact.length > MAX_SIGNED_SCORE_CHARS) {
    throw scoreSignatureInvalid(`it is longer than ${MAX_SIGNED_SCORE_CHARS} characters.`);
  }
  let keys: ReturnType<typeof createLocalJWKSet>;
  try {
    keys = createLocalJWKSet(jwks);
  } catch {
    throw scoreSignatureInvalid('the key set is not a JWKS ({"keys": [...]}).');
  }
  let verified: Awaited<ReturnType<typeof compactVerify>>;
  try {
    verified = await compactVerify(compact, keys, { algorithms: ['EdDSA'] });
  } catch (err) {
    throw scoreSignatureInvalid(reasonOf(err));
  }
  if (verified.protectedHeader.typ !== SCORE_JWS_TYPE) {
    throw scoreSignatureInvalid(`its header typ is not ${SCORE_JWS_TYPE}, so it is not a Cairn score.`);
  }
  const text = new TextDecoder('utf-8').decode(verified.payload);
  const parsed = signedScorePayload.safeParse(parseJson(text));
  if (!parsed.success) throw scoreSignatureInvalid('the signed payload is not a Cairn score.');
  if (canonicalScore(parsed.data) !== text) {
    throw scoreSignatureInvalid('the signed payload is not in canonical form.');
  }
  return parsed.data;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** jose's refusal, in words an operator can act on. */
function reasonOf(err: unknown): string {
  if (err instanceof errors.JWSSignatureVerificationFailed) {
    return 'the signature does not match: the score or its signature was changed after signing.';
  }
  if (err instanceof errors.JWKSNoMatchingKey) {
    return 'no key of the JWKS has its kid (is it the JWKS of the Cairn that issued it?).';
  }
  if (err instanceof errors.JOSEAlgNotAllowed) return 'its algorithm is not EdDSA.';
  if (err instanceof errors.JWKSMultipleMatchingKeys) return 'several keys of the JWKS have its kid.';
  if (err instanceof errors.JWSInvalid) return 'it is not a compact JWS (header.payload.signature).';
  return 'it could not be checked.';
}
