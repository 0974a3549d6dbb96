import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthHarness, REDIRECT, startOAuthHarness } from '../support/oauth.ts';
import { oauthCheck } from '../support/oauth-checks.ts';

/** Native OAuth end to end with the official MCP SDK client's own flow. */

let h: OAuthHarness;
beforeAll(async () => {
  h = await startOAuthHarness();
});
afterAll(async () => {
  await (h as Awaited<ReturnType<typeof startOAuthHarness>>)?.close();
});

/** An in-memory OAuth client as an MCP host application would keep one. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | undefined;
  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Vitest MCP host',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

describe(
  'the official SDK client',
  oauthCheck(
    '@modelcontextprotocol/sdk',
    'MCP authorization: discovery, registration, consent, code with PKCE, then a tool call',
  ),
  () => {
    it('discovers, registers, gets consent, finishes auth and lists tools', async () => {
      const provider = new MemoryProvider();
      const url = new URL(`${h.server.url}/mcp`);
      const first = new StreamableHTTPClientTransport(url, { authProvider: provider });
      const client = new Client({ name: 'vitest-oauth', version: '1.0.0' });
      await expect(client.connect(first)).rejects.toThrow(/unauthorized/i);
      expect(provider.info?.client_id).toMatch(/^cli_/);
      const authUrl = provider.authorizationUrl!;
      expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
      expect(authUrl.searchParams.get('resource')).toBe(`${h.server.url}/mcp`);

      const back = await h.consent(authUrl.href, 'allow');
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('iss')).toBe(h.server.url);
      await first.finishAuth(back.searchParams.get('code')!);
      expect(provider.saved?.access_token).toMatch(/^cd_acc_/);

      const connected = new Client({ name: 'vitest-oauth', version: '1.0.0' });
      await connected.connect(new StreamableHTTPClientTransport(url, { authProvider: provider }));
      const names = (await connected.listTools()).tools.map((t) => t.name);
      // Consent activates public reading for the new identity, and nothing else: no campaign
      // work until it creates or joins a campaign.
      expect(names).toContain('fetch_text');
      expect(names).not.toContain('task_claim');
      expect(names).not.toContain('message_append');
      const whoami = await connected.callTool({ name: 'identity_whoami', arguments: {} });
      expect(whoami.structuredContent).toMatchObject({ mode: 'READ', display_name: 'Vitest MCP host' });
      await connected.close();
    });
  },
);
