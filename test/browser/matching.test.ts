import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { campaignWith, ok } from '../support/campaigns.ts';
import {
  chromiumInstalled as installed,
  launchBrowser,
  problemsOf,
  SCREENSHOTS as SHOTS,
  signIn,
} from '../support/chromium.ts';
import { uniqueEmail } from '../support/factories.ts';
import { matchingMember, openCall } from '../support/matching.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

/**
 * Issue 19 (console): two owners decide a matching request in a browser, in order. The
 * applicant's owner first finds no Accept button (the campaign's owner decides first); the
 * campaign's owner presses Accept under "Your turn"; then the applicant's owner presses Accept on
 * the request's page, and the agent is a member. Plain form posts, no script, under the CSP.
 */

const PASSWORD = 'correct horse battery staple';

describe.skipIf(!installed)('deciding a matching request in Chromium', () => {
  let server: TestServer;
  let context: BrowserContext;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;

  beforeAll(async () => {
    server = await startTestServer();
    browser = await launchBrowser();
    context = browser.context;
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** Signs in as `email` from the page the console sent the browser to, and lands on `where`. */
  async function as(page: Page, email: string, where: string) {
    await page.goto(`${server.url}${where}`);
    await signIn(page, email, PASSWORD);
    await page.waitForURL((url) => `${url.pathname}${url.search}` === where);
  }

  it('the campaign owner accepts, then the applicant’s owner, by clicking', async () => {
    const ownerA = uniqueEmail();
    const ownerB = uniqueEmail();
    await server.app.services.identity.addOwner(ownerA, PASSWORD);
    await server.app.services.identity.addOwner(ownerB, PASSWORD);
    const coordinator = await matchingMember(server, { ownerEmail: ownerA });
    const applicant = await matchingMember(server, { ownerEmail: ownerB });
    const topic = `w${Math.random().toString(36).slice(2, 10)}`;
    const campaignId = await campaignWith(coordinator, [], { participation: 'APPLICATION' });
    const call = await openCall(server, coordinator, campaignId, topic);
    const made = await ok(applicant, 'matching_interest', {
      intent_id: call.intent_id,
      reason: 'I read atlases.',
      task_ref: call.application_ref,
    });
    const id = made.matching_request_id as string;
    await ok(coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
    const row = `#request-${id}`;

    const page = await context.newPage();
    const problems = problemsOf(page);
    try {
      // The applicant's owner: the campaign's owner decides first, so no buttons yet.
      await as(page, ownerB, '/console/matching');
      await expect(page.locator(row).innerText()).resolves.toContain('Waiting for the campaign’s owner');
      await expect(page.locator(row).getByRole('button').count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL((url) => url.pathname === '/console/signin');

      // The campaign's owner, under "Your turn".
      await as(page, ownerA, '/console/matching');
      await page.getByRole('link', { name: 'Your turn', exact: true }).click();
      await page.waitForURL((url) => url.search === '?state=YOUR_TURN');
      await expect(page.locator(row).innerText()).resolves.toContain(
        'Self-reported by the agent; not verified.',
      );
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'matching-your-turn.png'), fullPage: true });
      await page.locator(row).getByRole('button', { name: 'Accept', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'accepted');
      await expect(page.getByRole('status').first().innerText()).resolves.toContain(
        'The joining agent’s owner decides next',
      );
      await expect(page.locator(row).count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL((url) => url.pathname === '/console/signin');

      // The applicant's owner, on the request's page.
      await as(page, ownerB, '/console/matching?state=YOUR_TURN');
      await page.locator(row).getByRole('link', { name: 'APPLICATION', exact: true }).click();
      await page.waitForURL((url) => url.pathname === `/console/matching/${id}`);
      await expect(page.locator('#decision').innerText()).resolves.toContain(
        'Accepting makes your agent a participant of the campaign now.',
      );
      await page.locator('#decision').getByRole('button', { name: 'Accept', exact: true }).click();
      await page.waitForURL((url) => url.search === '?done=joined');
      await expect(page.getByRole('status').first().innerText()).resolves.toContain(
        'The agent joined the campaign as a participant.',
      );
      await expect(page.locator('#decision').innerText()).resolves.toContain('JOINED');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'matching-joined.png'), fullPage: true });
      const status = await ok(applicant, 'campaign_status', { campaign_id: campaignId }, false);
      expect(status.campaign_id ?? status.campaign?.campaign_id).toBe(campaignId);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await coordinator.client.close();
      await applicant.client.close();
    }
  });
});
