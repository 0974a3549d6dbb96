import { describe, expect, it } from 'vitest';
import { findCredential } from './credential-scan.ts';
import { newToken } from './ids.ts';

describe('findCredential', () => {
  const secrets: Array<[string, string]> = [
    ['CAIRN_TOKEN', newToken('prj')],
    ['CAIRN_TOKEN', `my key is ${newToken('acc')} ok`],
    ['CAIRN_TOKEN', newToken('boot')],
    ['CAIRN_TOKEN', `owner token: ${newToken('own')}`],
    [
      'JWT',
      'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U',
    ],
    ['PRIVATE_KEY', '-----BEGIN RSA PRIVATE KEY-----\nMIIE...'],
    ['PRIVATE_KEY', '-----BEGIN OPENSSH PRIVATE KEY-----'],
    ['PRIVATE_KEY', '-----BEGIN PRIVATE KEY-----'],
    ['AWS_ACCESS_KEY', 'AKIAIOSFODNN7EXAMPLE'],
    ['GITHUB_TOKEN', `ghp_${'a1B2'.repeat(9)}`],
    ['GITHUB_TOKEN', `github_pat_${'x'.repeat(30)}`],
    ['SLACK_TOKEN', 'xoxb-123456789012-abcdefghij'],
    ['STRIPE_KEY', `sk_live_${'4eC39HqLyjWDarjtT1zdp7dc'}`],
    ['OPENAI_OR_ANTHROPIC_KEY', `sk-proj-${'A'.repeat(40)}`],
    ['OPENAI_OR_ANTHROPIC_KEY', `sk-ant-api03-${'b'.repeat(40)}`],
    ['GOOGLE_API_KEY', `AIza${'S'.repeat(35)}`],
    ['BEARER_CREDENTIAL', 'Authorization: Bearer abcdefghijklmnopqrstuvwxyz012345'],
  ];

  for (const [kind, secret] of secrets) {
    it(`finds ${kind} in ${secret.slice(0, 12)}…`, () => {
      expect(findCredential({ note: secret })).toEqual({ path: 'note', kind });
    });
  }

  it('finds secrets glued to other text', () => {
    const glued = [
      `key_${newToken('prj')}`,
      `x${newToken('acc')}`,
      `Bearer_${newToken('own')}`,
      'secret_AKIAIOSFODNN7EXAMPLE',
      `token_ghp_${'a1B2'.repeat(9)}`,
      `prefix${'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijklmnop'}`,
    ];
    for (const g of glued) expect(findCredential({ g })).not.toBeNull();
  });

  it('reports nested paths and keys without the value', () => {
    const token = newToken('ref');
    expect(findCredential({ a: [{ b: 'fine' }, { c: token }] })).toEqual({
      path: 'a[1].c',
      kind: 'CAIRN_TOKEN',
    });
    const hit = findCredential({ outer: { [token]: 1 } });
    expect(hit).toEqual({ path: 'outer (an object key)', kind: 'CAIRN_TOKEN' });
  });

  it("passes Cairn's own ids, even one whose ULID happens to read like an AWS key id", () => {
    // The ULID's time part passes through "AGPA" now and then: AGPA and 16 capitals is that shape.
    const id = 'cmp_01M89AAGPA0123456789ABCDEF';
    expect(findCredential({ campaign_id: id })).toBeNull();
    expect(findCredential({ context: JSON.stringify({ scope: 'CAMPAIGN', campaign_id: id }) })).toBeNull();
    // The same characters outside an id's shape are still refused.
    expect(findCredential({ note: 'AGPA0123456789ABCDEF' })).toEqual({
      path: 'note',
      kind: 'AWS_ACCESS_KEY',
    });
    expect(findCredential({ note: 'secret_AKIAIOSFODNN7EXAMPLE' })).not.toBeNull();
  });

  it('passes ordinary research text', () => {
    const text = [
      'The bearer of this letter is trusted.',
      'See https://example.org/docs?page=2 and the sk-learn docs.',
      'Key findings: AKIA is a prefix AWS uses.',
      'eyJ alone is not a token',
      'cd_prj_ is the project key prefix',
      'owner tokens start with cd_own_',
    ];
    for (const t of text) expect(findCredential({ t })).toBeNull();
    expect(findCredential({ n: 5, b: true, z: null, list: [1, 2] })).toBeNull();
  });
});
