import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, openSignedIn } from '../support/browser.ts';
import { campaignWith, ok } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf, SCREENSHOTS as SHOTS } from '../support/chromium.ts';
import { matchingMember, openCall } from '../support/matching.ts';

/**
 * Issue 19 (console): two owners decide a matching request in a browser, in order. The
 * applicant's owner first finds no Accept button (the campaign's owner decides first); the
 * campaign's owner presses Accept under "Your turn"; then the applicant's owner presses Accept on
 * the request's page, and the agent is a member. Plain form posts, no script, under the CSP.
 */

describe.skipIf(!installed)('deciding a matching request in Chromium', () => {
  const suite = browserSuite();

  it('the campaign owner accepts, then the applicant’s owner, by clicking', async () => {
    const ownerA = await newOwner(suite.server);
    const ownerB = await newOwner(suite.server);
    const coordinator = await matchingMember(suite.server, { ownerEmail: ownerA });
    const applicant = await matchingMember(suite.server, { ownerEmail: ownerB });
    const topic = `w${Math.random().toString(36).slice(2, 10)}`;
    const campaignId = await campaignWith(coordinator, [], { participation: 'APPLICATION' });
    const call = await openCall(suite.server, coordinator, campaignId, topic);
    const made = await ok(applicant, 'matching_interest', {
      intent_id: call.intent_id,
      reason: 'I read atlases.',
      task_ref: call.application_ref,
    });
    const id = made.matching_request_id as string;
    await ok(coordinator, 'matching_respond', { matching_request_id: id, decision: 'ACCEPT' });
    const row = `#request-${id}`;

    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    try {
      // The applicant's owner: the campaign's owner decides first, so no buttons yet.
      await openSignedIn(page, suite.server, ownerB, '/console/matching');
      await expect(page.locator(row).innerText()).resolves.toContain('Waiting for the campaign’s owner');
      await expect(page.locator(row).getByRole('button').count()).resolves.toBe(0);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.waitForURL((url) => url.pathname === '/console/signin');

      // The campaign's owner, under "Your turn".
      await openSignedIn(page, suite.server, ownerA, '/console/matching');
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
      await openSignedIn(page, suite.server, ownerB, '/console/matching?state=YOUR_TURN');
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
