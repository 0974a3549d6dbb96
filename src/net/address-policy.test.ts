import { describe, expect, it } from 'vitest';
import { checkAddress, isBlockedHostName } from './address-policy.ts';

describe('checkAddress', () => {
  const refused = [
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '0.1.2.3',
    '255.255.255.255',
    '224.0.0.1',
    '192.0.2.1',
    '198.18.0.1',
    '240.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    '2001:db8::1',
    '100::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '::7f00:1',
    '::a00:1',
    '64:ff9b::7f00:1',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::',
    '2002:a00:1::1',
    // Teredo whose client (inverted last 32 bits) is 127.0.0.1.
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
  ];
  for (const address of refused) {
    it(`refuses ${address}`, () => expect(checkAddress(address).allowed).toBe(false));
  }

  const allowed = [
    '8.8.8.8',
    '93.184.216.34',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ];
  for (const address of allowed) {
    it(`allows ${address}`, () => expect(checkAddress(address).allowed).toBe(true));
  }

  it('explains refusals', () => {
    expect(checkAddress('::ffff:127.0.0.1').reason).toBe('ipv4Mapped form of an IPv4 loopback address');
    expect(checkAddress('not-an-ip').allowed).toBe(false);
  });
});

describe('isBlockedHostName', () => {
  it('blocks local and metadata names', () => {
    for (const h of [
      'localhost',
      'LOCALHOST.',
      'api.localhost',
      'metadata.google.internal',
      'db.internal',
      'printer.local',
    ]) {
      expect(isBlockedHostName(h)).toBe(true);
    }
    expect(isBlockedHostName('example.org')).toBe(false);
  });
});
