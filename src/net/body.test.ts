import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { decodeBody, decodeLayers } from './body.ts';
import type { NetRefusal } from './refusal.ts';

function refusal(f: () => unknown): NetRefusal {
  try {
    f();
  } catch (err) {
    return err as NetRefusal;
  }
  throw new Error('expected a refusal');
}

describe('decodeBody', () => {
  const text = Buffer.from('plain words');

  it('decodes each supported encoding, and none', () => {
    expect(decodeBody(zlib.gzipSync(text), 'gzip', 1_000).toString()).toBe('plain words');
    expect(decodeBody(zlib.gzipSync(text), 'X-GZIP', 1_000).toString()).toBe('plain words');
    expect(decodeBody(zlib.deflateSync(text), 'deflate', 1_000).toString()).toBe('plain words');
    expect(decodeBody(zlib.brotliCompressSync(text), 'br', 1_000).toString()).toBe('plain words');
    expect(decodeBody(text, undefined, 1_000).toString()).toBe('plain words');
    expect(decodeBody(text, 'identity', 1_000).toString()).toBe('plain words');
  });

  it('unwraps stacked encodings, last applied first', () => {
    const twice = zlib.brotliCompressSync(zlib.gzipSync(text));
    expect(decodeBody(twice, 'gzip, br', 1_000).toString()).toBe('plain words');
    expect(decodeBody(zlib.gzipSync(zlib.gzipSync(text)), 'gzip,gzip', 1_000).toString()).toBe('plain words');
  });

  it('holds every layer of a stacked bomb to the cap', () => {
    // The outer layer is small when decoded; the inner one expands past the cap.
    const bomb = zlib.gzipSync(zlib.gzipSync(Buffer.alloc(5_000_000)));
    expect(bomb.length).toBeLessThan(10_000);
    expect(zlib.gunzipSync(bomb).length).toBeLessThan(100_000);
    expect(refusal(() => decodeBody(bomb, 'gzip, gzip', 100_000)).reason).toBe('RESPONSE_TOO_LARGE');
    expect(refusal(() => decodeBody(zlib.gzipSync(Buffer.alloc(200_000)), 'gzip', 100_000)).reason).toBe(
      'RESPONSE_TOO_LARGE',
    );
  });

  it('refuses more than two layers, and encodings it does not know', () => {
    const thrice = zlib.gzipSync(zlib.gzipSync(zlib.gzipSync(text)));
    expect(refusal(() => decodeBody(thrice, 'gzip, gzip, gzip', 1_000)).reason).toBe('UNSUPPORTED_ENCODING');
    expect(refusal(() => decodeBody(text, 'compress', 1_000)).reason).toBe('UNSUPPORTED_ENCODING');
    expect(refusal(() => decodeBody(text, 'zstd', 1_000)).reason).toBe('UNSUPPORTED_ENCODING');
  });

  it('calls a corrupt body undecodable, not a connection failure', () => {
    for (const encoding of ['gzip', 'deflate', 'br', 'gzip, gzip']) {
      const out = refusal(() => decodeBody(Buffer.from('not compressed at all'), encoding, 1_000));
      expect(out.reason, encoding).toBe('UNDECODABLE_BODY');
      expect(out.details).toEqual({ content_encoding: encoding });
    }
  });

  it('decodes the readable start of a body cut short on purpose', () => {
    const whole = zlib.gzipSync(Buffer.from('x'.repeat(50_000)));
    const cut = whole.subarray(0, Math.floor(whole.length / 2));
    expect(decodeLayers(cut, 'gzip', 100_000, true).length).toBeGreaterThan(0);
    expect(refusal(() => decodeLayers(cut, 'gzip', 100_000, false)).reason).toBe('UNDECODABLE_BODY');
  });
});
