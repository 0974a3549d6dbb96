import { describe, expect, it } from 'vitest';
import { checkAddress, isBlockedHostName, literalAddress } from './address-policy.ts';

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
    // Teredo whose server (bits 32-63) is 10.0.0.1, client public.
    '2001:0:a00:1:8000:63bf:f7f7:f7f7',
    '100.100.100.200', // Alibaba Cloud metadata (CGNAT)
    '169.254.0.23', // Tencent Cloud metadata
    '192.0.0.192', // Oracle Cloud metadata
    'fd00:ec2::254', // AWS metadata over IPv6 (unique-local)
    '192.88.99.1',
    '198.51.100.7',
    '203.0.113.9',
    '::127.0.0.1', // IPv4-compatible, dotted
    '::ffff:0:7f00:1', // RFC 6145 IPv4-translated
    '::ffff:100.100.100.200',
    '::ffff:0.0.0.0',
    '64:ff9b::127.0.0.1',
    '64:ff9b:1::808:808', // local-use NAT64 leads into the local network whatever it embeds
    '64:ff9b:1::a00:1',
    '2002:a9fe:a9fe::1', // 6to4 of the metadata address
    'fe80::1%eth0', // link-local with a zone id
    'fec0::1', // deprecated site-local
    '2001:2::1', // benchmarking
    '2001:20::1', // ORCHIDv2
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

  it('judges loopback and unspecified as what they are, not as IPv4-compatible forms', () => {
    expect(checkAddress('::1').reason).toBe('IPv6 loopback address');
    expect(checkAddress('::').reason).toBe('IPv6 unspecified address');
    expect(checkAddress('64:ff9b:1::808:808').reason).toBe('IPv6 local-use NAT64 address');
  });

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
      'metadata.google.internal.',
      'localhost..',
      'instance-data',
      'instance-data.ec2.internal',
      'metadata.tencentyun.com',
      'kubernetes.default.svc',
    ]) {
      expect(isBlockedHostName(h)).toBe(true);
    }
    expect(isBlockedHostName('example.org')).toBe(false);
  });
});

describe('literalAddress', () => {
  it('canonicalises address hosts, with or without brackets and trailing dots', () => {
    expect(literalAddress('127.0.0.1..')).toBe('127.0.0.1');
    expect(literalAddress('[::ffff:7f00:1]')).toBe('::ffff:7f00:1');
    expect(literalAddress('example.org')).toBeNull();
    expect(literalAddress('127.0.0.1.example')).toBeNull();
  });
});
