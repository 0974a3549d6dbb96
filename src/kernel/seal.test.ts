import { describe, expect, it } from 'vitest';
import { sealJson, unsealJson } from './seal.ts';

const secret = 's'.repeat(40);

describe('seal', () => {
  it('round-trips a value and hides it', () => {
    const sealed = sealJson(secret, { token: 'cd_acc_x' });
    expect(sealed).not.toContain('cd_acc_x');
    expect(unsealJson(secret, sealed)).toEqual({ token: 'cd_acc_x' });
  });

  it('refuses a tampered value or another secret', () => {
    const sealed = sealJson(secret, { a: 1 });
    const [iv, tag, body] = sealed.split('.');
    const flipped = `${iv}.${tag}.${body?.startsWith('A') ? 'B' : 'A'}${body?.slice(1)}`;
    expect(() => unsealJson(secret, flipped)).toThrow();
    expect(() => unsealJson('t'.repeat(40), sealed)).toThrow();
  });
});
