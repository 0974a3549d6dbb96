import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { browserSuite, newOwner, PASSWORD } from '../support/browser.ts';
import { chromiumInstalled as installed, SCREENSHOTS as SHOTS } from '../support/chromium.ts';
import { startConsent } from '../support/consent.ts';

describe.skipIf(!installed)('OAuth consent in Chromium', () => {
  const clock = new FakeClock(new Date());
  const suite = browserSuite({ server: { clock } });
  /** The application's loopback listener (RFC 8252 §7.3): where the browser brings the answer. */
  let listener: Server;
  let callbackBase: string;
  let received: URLSearchParams[];

  beforeAll(async () => {
    listener = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/cb') received.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Connected</title><h1>You can close this window</h1>');
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    callbackBase = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => (listener ? listener.close(resolve) : resolve(undefined)));
  });
  beforeEach(async () => {
    received = [];
    await suite.context.clearCookies();
  });

  it('signs in from the review link, shows the return host, and Allow brings code and state to the application', async () => {
    const email = await newOwner(suite.server);
    // The application registers and sends the browser to /oauth/authorize, as an MCP host does.
    const registered = await fetch(`${suite.server.url}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Browser editor',
        redirect_uris: [`${callbackBase}/cb`],
        token_endpoint_auth_method: 'none',
        grant_types: ['authorization_code', 'refresh_token'],
      }),
    });
    const clientId = ((await registered.json()) as { client_id: string }).client_id;
    const verifier = randomBytes(32).toString('base64url');
    const authorize = new URL(`${suite.server.url}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: `${callbackBase}/cb`,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
      state: 'browser-state-1',
      scope: 'mcp',
      resource: `${suite.server.url}/mcp`,
    })) {
      authorize.searchParams.set(k, v);
    }

    const page = await suite.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    try {
      await page.goto(authorize.href);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname.startsWith('/console/authorize/orq_'));

      await page.getByRole('heading', { name: 'An application asks to connect' }).waitFor();
      await expect(page.getByText('Browser editor', { exact: true }).isVisible()).resolves.toBe(true);
      await expect(
        page.getByRole('heading', { name: /self-described, not verified/ }).isVisible(),
      ).resolves.toBe(true);
      await expect(page.locator('#return-host').textContent()).resolves.toBe(
        callbackBase.slice('http://'.length),
      );
      // The return host is set large by the same-origin stylesheet (no inline styles under the CSP).
      const size = await page.locator('#return-host').evaluate((el) => getComputedStyle(el).fontSize);
      expect(size).toBe('32px');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'oauth-consent.png'), fullPage: true });

      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      // A form-action CSP that left out the return address would stop the browser here.
      await page.waitForURL((url) => url.origin === callbackBase && url.pathname === '/cb', {
        timeout: 10_000,
      });
      await page.getByRole('heading', { name: 'You can close this window' }).waitFor();

      expect(received).toHaveLength(1);
      const answer = received[0]!;
      expect(answer.get('code')).toMatch(/.{20,}/);
      expect(answer.get('state')).toBe('browser-state-1');
      expect(answer.get('iss')).toBe(suite.server.url);
      expect(answer.get('error')).toBeNull();
      expect(problems).toEqual([]);
      // The application finishes: the code and its verifier buy a token for the new identity.
      const token = await fetch(`${suite.server.url}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: answer.get('code')!,
          redirect_uri: `${callbackBase}/cb`,
          code_verifier: verifier,
          client_id: clientId,
        }),
      });
      expect(((await token.json()) as { access_token: string }).access_token).toMatch(/^cd_acc_/);

      // The connection is listed in the console, with its identity.
      await page.goto(`${suite.server.url}/console/connections`);
      await expect(page.getByRole('cell', { name: 'Browser editor', exact: true }).isVisible()).resolves.toBe(
        true,
      );
      await expect(page.getByRole('button', { name: 'Revoke Browser editor' }).isVisible()).resolves.toBe(
        true,
      );
    } finally {
      await page.close();
    }
  });

  it('Decline brings access_denied and the state to the application', async () => {
    const email = await newOwner(suite.server);
    const { requestId, binding } = await startConsent(suite.server, clock, {
      redirectUri: `${callbackBase}/cb`,
      state: 'browser-state-2',
    });
    // What /oauth/authorize sets in the browser that starts the request.
    await suite.context.addCookies([
      { name: 'cairn_consent', value: binding, url: `${suite.server.url}/console/authorize/${requestId}` },
    ]);
    const page = await suite.context.newPage();
    try {
      await page.goto(`${suite.server.url}/console/signin`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/console');
      await page.goto(`${suite.server.url}/console/authorize/${requestId}`);
      await page.getByRole('button', { name: 'Decline', exact: true }).click();
      // A form-action CSP that left out the return address would stop the browser here.
      await page.waitForURL((url) => url.origin === callbackBase && url.pathname === '/cb', {
        timeout: 10_000,
      });
      expect(received).toHaveLength(1);
      expect(received[0]!.get('error')).toBe('access_denied');
      expect(received[0]!.get('state')).toBe('browser-state-2');
      expect(received[0]!.get('code')).toBeNull();
    } finally {
      await page.close();
    }
  });
});
