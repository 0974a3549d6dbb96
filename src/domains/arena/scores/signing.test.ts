import {
  CompactSign,
  calculateJwkThumbprint,
  compactVerify,
  createLocalJWKSet,
  decodeProtectedHeader,
} from 'jose';
import { describe, expect, it } from 'vitest';
import { DomainError } from '../../../kernel/errors.ts';
import { newSigningKey, publishedJwk } from '../keys.ts';
import { sampleScore } from './fixtures.ts';
import { canonicalScore } from './payload.ts';
import { SCORE_JWS_TYPE, signScore, verifyScore } from './signing.ts';

const key = await newSigningKey();
const other = await newSigningKey();
const jwks = { keys: [publishedJwk(key.kid, key.publicJwk)] };

/** The verification's refusal reason, or null when it verifies. */
async function refusal(jws: string, set = jwks): Promise<string | null> {
  try {
    await verifyScore(jws, set);
    return null;
  } catch (err) {
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('SCORE_SIGNATURE_INVALID');
    return (err as DomainError).message;
  }
}

/** The segment's bytes with one byte changed (one bit flipped), encoded again. */
function flipByte(segment: string, at: number): string {
  const bytes = Buffer.from(segment, 'base64url');
  bytes[at] = (bytes[at] ?? 0) ^ 0x01;
  return bytes.toString('base64url');
}

describe('signed scores', () => {
  it('sign a compact JWS (EdDSA) of the canonical payload that jose verifies against the JWKS', async () => {
    const score = sampleScore();
    const jws = await signScore(score, key);
    expect(jws.split('.')).toHaveLength(3);
    expect(decodeProtectedHeader(jws)).toEqual({ alg: 'EdDSA', kid: key.kid, typ: SCORE_JWS_TYPE });
    // The kid is the RFC 7638 thumbprint of the public key.
    expect(key.kid).toBe(await calculateJwkThumbprint(key.publicJwk, 'sha256'));
    expect(key.kid).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // jose on its own, as any verifier would do it.
    const { payload, protectedHeader } = await compactVerify(jws, createLocalJWKSet(jwks), {
      algorithms: ['EdDSA'],
    });
    expect(protectedHeader.kid).toBe(key.kid);
    expect(new TextDecoder().decode(payload)).toBe(canonicalScore(score));

    expect(await verifyScore(jws, jwks)).toEqual(score);
  });

  it('refuse a score when any one byte of its payload changed', async () => {
    const jws = await signScore(sampleScore(), key);
    const [header, payload, signature] = jws.split('.') as [string, string, string];
    const length = Buffer.from(payload, 'base64url').length;
    for (let at = 0; at < length; at++) {
      expect(await refusal(`${header}.${flipByte(payload, at)}.${signature}`)).toMatch(
        /signature does not match/,
      );
    }
    // Changed to a well-formed score of its own: a higher score.
    const better = Buffer.from(canonicalScore(sampleScore({ score: 10 }))).toString('base64url');
    expect(await refusal(`${header}.${better}.${signature}`)).toMatch(/signature does not match/);
  });

  it('refuse a score when any one byte of its signature or header changed', async () => {
    const jws = await signScore(sampleScore(), key);
    const [header, payload, signature] = jws.split('.') as [string, string, string];
    for (let at = 0; at < 64; at++) {
      expect(await refusal(`${header}.${payload}.${flipByte(signature, at)}`)).toMatch(
        /signature does not match/,
      );
    }
    const retyped = Buffer.from(JSON.stringify({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })).toString(
      'base64url',
    );
    expect(await refusal(`${retyped}.${payload}.${signature}`)).toMatch(/signature does not match/);
  });

  it('refuse a score of an unknown key, another type, or not a JWS at all, saying why', async () => {
    expect(await refusal(await signScore(sampleScore(), other))).toMatch(/no key of the JWKS has its kid/);
    const jwt = await new CompactSign(new TextEncoder().encode(canonicalScore(sampleScore())))
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: 'JWT' })
      .sign(key.privateKey);
    expect(await refusal(jwt)).toMatch(/typ is not cairn-score\+jws/);
    const notScore = await new CompactSign(new TextEncoder().encode('{"score":10}'))
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: SCORE_JWS_TYPE })
      .sign(key.privateKey);
    expect(await refusal(notScore)).toMatch(/not a Cairn score/);
    const unsorted = await new CompactSign(new TextEncoder().encode(JSON.stringify(sampleScore())))
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid, typ: SCORE_JWS_TYPE })
      .sign(key.privateKey);
    expect(await refusal(unsorted)).toMatch(/not in canonical form/);
    expect(await refusal('not.a.jws')).toMatch(/not a compact JWS/);
    expect(await refusal('x')).toMatch(/not a compact JWS/);
    expect(await refusal(await signScore(sampleScore(), key), { keys: 'none' } as never)).toMatch(
      /not a JWKS/,
    );
  });

  it('verify a score signed by a key retired since, while the JWKS still lists it', async () => {
    const old = await signScore(sampleScore(), key);
    const successor = await newSigningKey();
    const rotated = { keys: [publishedJwk(successor.kid, successor.publicJwk), ...jwks.keys] };
    expect(await verifyScore(old, rotated)).toEqual(sampleScore());
    expect(await verifyScore(await signScore(sampleScore({ score: 1 }), successor), rotated)).toEqual(
      sampleScore({ score: 1 }),
    );
    // Dropped from the JWKS, its scores no longer verify: that is why retired keys stay published.
    expect(await refusal(old, { keys: [rotated.keys[0]] } as never)).toMatch(/no key of the JWKS/);
  });

  it('refuse to sign a malformed payload', async () => {
    await expect(signScore(sampleScore({ score: 11 }), key)).rejects.toThrow();
    await expect(signScore({ ...sampleScore(), extra: 1 } as never, key)).rejects.toThrow();
  });
});
