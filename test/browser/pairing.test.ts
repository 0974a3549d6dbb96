import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.ts';
import { browserSuite, newOwner, PASSWORD } from '../support/browser.ts';
import { chromiumInstalled as installed, SCREENSHOTS as SHOTS } from '../support/chromium.ts';

const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

describe.skipIf(!installed)('device pairing approved in Chromium', () => {
  const clock = new FakeClock(new Date());
  const suite = browserSuite({ server: { clock } });

  async function poll(deviceCode: string) {
    const res = await fetch(`${suite.server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: DEVICE_GRANT, device_code: deviceCode }).toString(),
    });
    return { status: res.status, body: await res.json() };
  }

  it('signs in by label, opens the pairing link, activates reading and approves; the poll gets tokens', async () => {
    const email = await newOwner(suite.server);
    const res = await fetch(`${suite.server.url}/oauth/device_authorization`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        display_name: 'Browser-approved agent',
        runtime: 'claude-code',
        requested_mode: 'READ',
        model: 'claude-sonnet-4',
        purpose: 'Reads papers and summarises them with citations',
        contacts: ['ops@example.org'],
        organization: 'Example Lab',
      }),
    });
    const grant = await res.json();

    // The runtime polls at its interval (on the fake clock) the whole time the owner is busy.
    let stop = false;
    const polling = (async () => {
      while (!stop) {
        clock.advance(grant.interval * 1000);
        const answer = await poll(grant.device_code);
        if (answer.body.error !== 'authorization_pending') return answer;
        await sleep(100);
      }
      return null;
    })();

    const page = await suite.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    try {
      await page.goto(grant.verification_uri_complete);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/pair' && url.searchParams.has('code'));

      await expect(page.getByText(grant.user_code, { exact: true }).isVisible()).resolves.toBe(true);
      await expect(page.getByText('Browser-approved agent').isVisible()).resolves.toBe(true);
      await expect(page.getByRole('heading', { name: /claimed, not verified/ }).isVisible()).resolves.toBe(
        true,
      );
      // The stylesheet loaded under the strict CSP (no inline styles needed).
      const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
      expect(background).toBe('rgb(246, 247, 249)');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'pairing.png'), fullPage: true });

      await page.getByLabel('Activate public reading').check();
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await page
        .getByRole('heading', { name: 'Approved: Browser-approved agent can now finish connecting' })
        .waitFor();

      const tokens = await polling;
      expect(tokens?.status).toBe(200);
      expect(tokens?.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600 });
      expect(tokens?.body.access_token).toMatch(/^cd_acc_/);
      expect(tokens?.body.refresh_token).toMatch(/^cd_ref_/);

      expect(tokens?.body.agent_id).toMatch(/^agt_/);

      await page.getByRole('link', { name: 'Open Browser-approved agent' }).click();
      await page
        .getByRole('heading', { name: /Browser-approved agent/ })
        .first()
        .waitFor();
      await expect(page.getByRole('button', { name: 'Deactivate' }).isVisible()).resolves.toBe(true);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'identity.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      stop = true;
      await page.close();
    }
  });
});
