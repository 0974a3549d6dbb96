import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DnsFixture, startDnsFixture } from '../../test/support/dns-fixture.ts';
import { GuardedFetcher } from './guarded-fetch.ts';
import type { NetRefusal, NetRefusalReason } from './refusal.ts';
import { OutboundResolver } from './resolver.ts';

/** Every way a URL can name a non-public place is refused before any connection is made. */

let dns: DnsFixture;
let fetcher: GuardedFetcher;

beforeAll(async () => {
  dns = await startDnsFixture();
  dns.records.set('private.test', { A: ['10.1.2.3'] });
  dns.records.set('v6private.test', { AAAA: ['fd00::1'] });
  dns.records.set('mapped.test', { AAAA: ['::ffff:127.0.0.1'] });
  dns.records.set('metadata-alias.test', { A: ['169.254.169.254'] });
  dns.records.set('nat64.test', { AAAA: ['64:ff9b::a9fe:a9fe'] });
  fetcher = new GuardedFetcher(new OutboundResolver([dns.server]), {
    ports: new Set([80, 443]),
    allow: new Set(),
    timeoutMs: 2_000,
    maxBytes: 1_000_000,
    maxRedirects: 5,
    userAgent: 'CairnTest/1',
  });
});
afterAll(() => dns.close());

async function refusal(p: Promise<unknown>): Promise<NetRefusal> {
  try {
    await p;
  } catch (err) {
    return err as NetRefusal;
  }
  throw new Error('expected a refusal');
}

describe('GuardedFetcher refuses non-public hosts in every textual form', () => {
  // Every textual form of a non-public address a URL can carry, and internal names.
  const refusedHosts: Array<[string, NetRefusalReason]> = [
    ['http://127.0.0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://2130706433/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0177.0.0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://017700000001/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0x7f.0.0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0x7f000001/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0x7f.0x0.0x0.0x1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://127.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://127.0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0x7f.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0177.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://127.0x0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://127.000.000.001/', 'ADDRESS_NOT_PUBLIC'],
    ['http://127.0.0.1./', 'ADDRESS_NOT_PUBLIC'],
    ['http://127.0.0.1../', 'ADDRESS_NOT_PUBLIC'],
    ['http://%31%32%37.0.0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://１２７.０.０.１/', 'ADDRESS_NOT_PUBLIC'],
    ['http://127。0。0。1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0.0.0.0/', 'ADDRESS_NOT_PUBLIC'],
    ['http://10.0.0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0300.0250.0.1/', 'ADDRESS_NOT_PUBLIC'],
    ['http://169.254.169.254/latest/meta-data/', 'ADDRESS_NOT_PUBLIC'],
    ['http://2852039166/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0xa9fea9fe/', 'ADDRESS_NOT_PUBLIC'],
    ['http://0251.0376.0251.0376/', 'ADDRESS_NOT_PUBLIC'],
    ['http://100.100.100.200/latest/meta-data/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[::1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[0:0:0:0:0:0:0:1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[::]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[::ffff:127.0.0.1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[::ffff:7f00:1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[0:0:0:0:0:ffff:127.0.0.1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[::ffff:a9fe:a9fe]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[::127.0.0.1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[64:ff9b::127.0.0.1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[64:ff9b:1::808:808]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[2002:7f00:1::]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[fe80::1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[fd00:ec2::254]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://[ff02::1]/', 'ADDRESS_NOT_PUBLIC'],
    ['http://private.test/', 'ADDRESS_NOT_PUBLIC'],
    ['http://private.test./', 'ADDRESS_NOT_PUBLIC'],
    ['http://v6private.test/', 'ADDRESS_NOT_PUBLIC'],
    ['http://mapped.test/', 'ADDRESS_NOT_PUBLIC'],
    ['http://metadata-alias.test/', 'ADDRESS_NOT_PUBLIC'],
    ['http://nat64.test/', 'ADDRESS_NOT_PUBLIC'],
    ['http://localhost/', 'HOST_BLOCKED'],
    ['http://localhost./', 'HOST_BLOCKED'],
    ['http://LocalHost/', 'HOST_BLOCKED'],
    ['http://loc%61lhost/', 'HOST_BLOCKED'],
    ['http://ⓛⓞⓒⓐⓛⓗⓞⓢⓣ/', 'HOST_BLOCKED'],
    ['http://app.localhost/', 'HOST_BLOCKED'],
    ['http://metadata.google.internal/computeMetadata/v1/', 'HOST_BLOCKED'],
    ['http://metadata.google.internal./', 'HOST_BLOCKED'],
    ['http://metadata/', 'HOST_BLOCKED'],
    ['http://instance-data/latest/', 'HOST_BLOCKED'],
    ['http://instance-data.ec2.internal/', 'HOST_BLOCKED'],
    ['http://metadata.tencentyun.com/', 'HOST_BLOCKED'],
    ['http://kubernetes.default.svc/', 'HOST_BLOCKED'],
  ];
  for (const [url, reason] of refusedHosts) {
    it(`refuses ${url} as ${reason} before any request`, async () => {
      const calls = dns.asked.length;
      expect((await refusal(fetcher.fetch(url))).reason).toBe(reason);
      // Literal addresses and blocked names are judged without even a DNS question.
      if (reason === 'HOST_BLOCKED' || !url.includes('.test')) expect(dns.asked.length).toBe(calls);
    });
  }
});
