import { describe, expect, it } from 'vitest';
import { addressKey } from './owners.ts';

describe('addressKey', () => {
  it('counts IPv4 (also IPv4-mapped) per address', () => {
    expect(addressKey('203.0.113.7')).toBe('ip:203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('ip:203.0.113.7');
  });

  it('counts IPv6 per /64, whatever the spelling', () => {
    const key = 'ip:2001:db8:1:2::/64';
    expect(addressKey('2001:db8:1:2::1')).toBe(key);
    expect(addressKey('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:DB8:1:2:0:0:0:9%eth0')).toBe(key);
    expect(addressKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('ip:0:0:0:0::/64');
  });

  it('keeps anything unparseable as given, bounded', () => {
    expect(addressKey('2001:db8::1::2')).toBe('ip:2001:db8::1::2');
    expect(addressKey('x'.repeat(300))).toHaveLength(3 + 64);
  });
});
