import { createHmac } from 'node:crypto';
import { domainToASCII } from 'node:url';
import ipaddr from 'ipaddr.js';
import type { Clock } from '../../kernel/clock.ts';
import { DomainError } from '../../kernel/errors.ts';
import { base32 } from '../../kernel/ids.ts';
import { isBlockedHostName } from '../../net/address-policy.ts';
import type { GuardedFetcher } from '../../net/guarded-fetch.ts';
import { NetRefusal } from '../../net/refusal.ts';
import type { OutboundResolver } from '../../net/resolver.ts';
import type { Database } from '../../storage/database.ts';
import { agentDomains } from './tables.ts';
import type { Caller } from './types.ts';

/** One place that was looked at, and what was found there. */
export interface DomainCheck {
  method: 'DNS_TXT' | 'HTTPS_FILE';
  checked: string;
  found: boolean;
  detail: string;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A public DNS name in ASCII form, or a VALIDATION_FAILED explaining what is wrong with it. */
export function normalizeDomain(input: string): string {
  const raw = input.trim().toLowerCase().replace(/\.$/, '');
  const refuse = (msg: string) =>
    new DomainError('VALIDATION_FAILED', `"${raw.slice(0, 80)}" is not a domain you can verify: ${msg}.`, {
      detail: [{ loc: ['arguments', 'domain'], msg, type: 'invalid_domain' }],
    });
  if (/[/:@?#\s]/.test(raw)) throw refuse('name the domain alone, without scheme, port or path');
  const ascii = domainToASCII(raw);
  if (!ascii || ascii.length > 253) throw refuse('not a valid domain name');
  if (ipaddr.isValid(ascii)) throw refuse('an IP address is not a domain');
  const labels = ascii.split('.');
  if (labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    throw refuse('not a valid public domain name');
  }
  if (isBlockedHostName(ascii)) throw refuse('an internal name');
  return ascii;
}

/**
 * identity_verify_domain: the agent shows it controls a domain by publishing a token Cairn
 * derives from its identity and the domain, as a DNS TXT record or a file over https. Both
 * places are checked through the guarded resolver and fetcher, and the latest result is kept.
 */
export class DomainVerifier {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly secret: string,
    private readonly resolver: OutboundResolver,
    private readonly fetcher: GuardedFetcher,
  ) {}

  /** The same token for the same identity and domain, so it can be published before checking. */
  token(agentId: string, domain: string): string {
    const mac = createHmac('sha256', this.secret)
      .update(`domain-verification\n${agentId}\n${domain}`)
      .digest();
    return `cairn-verify=${base32(mac).slice(0, 32)}`;
  }

  async verify(caller: Caller, domainInput: string) {
    const domain = normalizeDomain(domainInput);
    const token = this.token(caller.agent.id, domain);
    const txtName = `_cairn-verify.${domain}`;
    const fileUrl = `https://${domain}/.well-known/cairn-verification.txt`;
    const checks = await Promise.all([this.checkTxt(txtName, token), this.checkFile(fileUrl, token)]);
    const passed = checks.find((c) => c.found);
    const now = this.clock.now();
    await this.database.db
      .insert(agentDomains)
      .values({
        agentId: caller.agent.id,
        domain,
        verified: Boolean(passed),
        method: passed?.method ?? null,
        checkedAt: now,
        verifiedAt: passed ? now : null,
      })
      .onConflictDoUpdate({
        target: [agentDomains.agentId, agentDomains.domain],
        set: {
          verified: Boolean(passed),
          method: passed?.method ?? null,
          checkedAt: now,
          verifiedAt: passed ? now : null,
        },
      });
    return {
      domain,
      verified: Boolean(passed),
      checked_at: now.toISOString(),
      token,
      publish: {
        dns_txt: { name: txtName, value: token },
        https_file: { url: fileUrl, content: token },
      },
      checks,
      next_step: passed
        ? `Verified by ${passed.method}. Others see this domain as verified for ${caller.agent.id}.`
        : `Publish the token as a TXT record at ${txtName}, or as the file ${fileUrl}, then call identity_verify_domain again.`,
    };
  }

  private async checkTxt(name: string, token: string): Promise<DomainCheck> {
    try {
      const records = await this.resolver.txt(name);
      const found = records.some((r) => r.trim() === token);
      return {
        method: 'DNS_TXT',
        checked: name,
        found,
        detail: found
          ? 'The token is published.'
          : records.length === 0
            ? 'No TXT record there.'
            : `${records.length} TXT record(s) there, none with the token.`,
      };
    } catch (err) {
      return { method: 'DNS_TXT', checked: name, found: false, detail: explain(err) };
    }
  }

  private async checkFile(url: string, token: string): Promise<DomainCheck> {
    try {
      // No redirects: an open redirect on the domain must not let another site vouch for it.
      const res = await this.fetcher.fetch(url, 'text/plain', 0);
      const lines = res.body
        .toString('utf8')
        .split(/\r?\n/)
        .map((l) => l.trim());
      const found = res.status === 200 && lines.includes(token);
      return {
        method: 'HTTPS_FILE',
        checked: url,
        found,
        detail: found
          ? 'The token is published.'
          : res.status === 200
            ? 'The file is there but does not contain the token.'
            : `The server answered HTTP ${res.status}.`,
      };
    } catch (err) {
      return { method: 'HTTPS_FILE', checked: url, found: false, detail: explain(err) };
    }
  }
}

function explain(err: unknown): string {
  if (err instanceof NetRefusal) return `Not checked: ${err.message} (${err.reason})`;
  return 'Not checked: the lookup failed.';
}
