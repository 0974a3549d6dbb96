import { describe, expect, it } from 'vitest';
import { loadAppConfig as loadConfig } from '../domains/catalog.ts';
import { ConfigError } from './config.ts';

describe('loadConfig', () => {
  it('defaults to the embedded database on 127.0.0.1:8080', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ port: 8080, host: '127.0.0.1', dataDir: './data', databaseUrl: undefined });
    expect(c.baseUrl).toBe('http://127.0.0.1:8080');
  });

  it('reports every bad value at once, naming the variable, without showing secrets', () => {
    let err: unknown;
    try {
      loadConfig({ PORT: 'eighty', LOG_LEVEL: 'loud', CAIRN_SECRET: 'short', DATABASE_URL: 'mysql://x' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/PORT: .*"eighty"/);
    expect(problems.join('\n')).toMatch(/LOG_LEVEL: .*"loud"/);
    expect(problems.join('\n')).toMatch(
      /CAIRN_SECRET: must be at least 32 characters \(got a value that is not shown\)/,
    );
    expect(problems.join('\n')).not.toContain('short');
    expect(problems.join('\n')).toMatch(/DATABASE_URL: must be a URL starting with postgres:/);
  });

  it("reports an area's bad variables in the same pass as the server's, and hides their keys", () => {
    let err: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        CAIRN_SMTP_PORT: 'twenty-five',
        CAIRN_MAILGUN_API_KEY: 'key-1',
        CAIRN_SEARCH_BRAVE_API_KEY: 'brave',
        CAIRN_SANDBOX_JOBS: '99',
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const problems = (err as ConfigError).problems.join('\n');
    expect((err as ConfigError).problems).toHaveLength(5);
    expect(problems).toMatch(/PORT: .*"eighty"/);
    expect(problems).toMatch(/CAIRN_SMTP_PORT: .*"twenty-five"/);
    expect(problems).toMatch(/CAIRN_SANDBOX_JOBS: .*"99"/);
    expect(problems).toMatch(
      /CAIRN_MAILGUN_API_KEY: must be at least 8 characters \(got a value that is not shown\)/,
    );
    expect(problems).toMatch(/CAIRN_SEARCH_BRAVE_API_KEY: .*\(got a value that is not shown\)/);
    expect(problems).not.toContain('key-1');
    expect(problems).not.toContain('brave"');
  });

  it('refuses half a mail setting rather than ignoring it', () => {
    const problems = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (e) {
        return (e as ConfigError).problems;
      }
      return [];
    };
    expect(problems({ CAIRN_SMTP_TLS_KEY_FILE: '/etc/cairn/key.pem' })).toEqual([
      expect.stringMatching(/^CAIRN_SMTP_TLS_CERT_FILE: required with CAIRN_SMTP_TLS_KEY_FILE/),
    ]);
    expect(problems({ CAIRN_POSTAL_API_KEY: 'a'.repeat(24) })).toEqual([
      expect.stringMatching(/^CAIRN_POSTAL_PUBLIC_KEY: required with CAIRN_POSTAL_API_KEY/),
    ]);
    expect(problems({ CAIRN_MAILGUN_API_KEY: 'key-123456789' })).toEqual([
      expect.stringMatching(/^CAIRN_MAILGUN_SIGNING_KEY: required with CAIRN_MAILGUN_API_KEY/),
    ]);
    expect(
      problems({
        CAIRN_SMTP_TLS_KEY_FILE: '/k.pem',
        CAIRN_SMTP_TLS_CERT_FILE: '/c.pem',
        CAIRN_MAILGUN_SIGNING_KEY: 'x'.repeat(16),
      }),
    ).toEqual([]);
  });

  it('never publishes a wildcard or unknown address as the base URL', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).baseUrl).toBe('http://127.0.0.1:9000');
    expect(() => loadConfig({ PORT: '0' })).toThrow(/CAIRN_BASE_URL: required with PORT=0/);
    expect(loadConfig({ PORT: '0', CAIRN_BASE_URL: 'https://cairn.example.org' }).baseUrl).toBe(
      'https://cairn.example.org',
    );
  });

  it('reads the outbound-read settings as lists and refuses malformed items', () => {
    const c = loadConfig({
      CAIRN_FETCH_PORTS: '8080, 8443',
      CAIRN_FETCH_DNS: '10.0.0.53:53,[::1]:5353',
      CAIRN_FETCH_ALLOW: 'Docs.Intranet.example:8080,[::1]:9000',
    });
    expect(c.fetch).toEqual({
      ports: [80, 443, 8080, 8443],
      dns: ['10.0.0.53:53', '[::1]:5353'],
      allow: ['docs.intranet.example:8080', '::1:9000'],
      caFile: undefined,
      timeoutSeconds: 20,
    });
    expect(loadConfig({}).fetch).toEqual({
      ports: [80, 443],
      dns: [],
      allow: [],
      caFile: undefined,
      timeoutSeconds: 20,
    });
    expect(() => loadConfig({ CAIRN_FETCH_PORTS: '80,99999' })).toThrow(/CAIRN_FETCH_PORTS/);
    expect(() => loadConfig({ CAIRN_FETCH_ALLOW: 'http://x/' })).toThrow(/CAIRN_FETCH_ALLOW/);
  });

  it('reads the /mcp host and origin lists normalized, and refuses what is not a host or an origin', () => {
    const c = loadConfig({
      CAIRN_ALLOWED_HOSTS: 'Cairn.Internal., 10.0.0.5:8080,[::1]:9000',
      CAIRN_ALLOWED_ORIGINS: 'HTTPS://App.Example:443/, http://localhost:6274,chrome-extension://abcdef,*',
    });
    expect(c.allowedHosts).toEqual(['cairn.internal', '10.0.0.5:8080', '[::1]:9000']);
    expect(c.allowedOrigins).toEqual([
      'https://app.example',
      'http://localhost:6274',
      'chrome-extension://abcdef',
      '*',
    ]);
    expect(loadConfig({})).toMatchObject({ allowedHosts: [], allowedOrigins: [] });
    for (const bad of [
      'https://cairn.example',
      'cairn.example/mcp',
      'cairn.example:99999',
      '*',
      'user@host',
    ]) {
      expect(() => loadConfig({ CAIRN_ALLOWED_HOSTS: bad }), bad).toThrow(/CAIRN_ALLOWED_HOSTS: /);
    }
    for (const bad of ['app.example', 'https://app.example/path', 'https://app.example:99999', 'null']) {
      expect(() => loadConfig({ CAIRN_ALLOWED_ORIGINS: bad }), bad).toThrow(/CAIRN_ALLOWED_ORIGINS: /);
    }
  });

  it('reads CAIRN_TRUST_PROXY as a flag or a hop count', () => {
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ CAIRN_TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ CAIRN_TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(() => loadConfig({ CAIRN_TRUST_PROXY: 'yes' })).toThrow(/CAIRN_TRUST_PROXY/);
  });

  it('reads CAIRN_MCP_DIRECT_CALLS as a flag, on by default', () => {
    expect(loadConfig({}).mcpDirectCalls).toBe(true);
    expect(loadConfig({ CAIRN_MCP_DIRECT_CALLS: 'false' }).mcpDirectCalls).toBe(false);
    expect(loadConfig({ CAIRN_MCP_DIRECT_CALLS: 'true' }).mcpDirectCalls).toBe(true);
    expect(() => loadConfig({ CAIRN_MCP_DIRECT_CALLS: 'no' })).toThrow(
      /CAIRN_MCP_DIRECT_CALLS: must be true or false/,
    );
  });

  it('trims a trailing slash from the base URL and treats empty values as unset', () => {
    const c = loadConfig({ CAIRN_BASE_URL: 'https://cairn.example.org/', PORT: '' });
    expect(c.baseUrl).toBe('https://cairn.example.org');
    expect(c.port).toBe(8080);
  });
});
