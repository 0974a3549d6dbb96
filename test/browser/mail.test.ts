import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, openSignedIn } from '../support/browser.ts';
import { campaignWith, newMember, ok } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf, SCREENSHOTS as SHOTS } from '../support/chromium.ts';

/**
 * Issue 18 (console): a campaign's mailbox page in a browser. The owner follows the campaign
 * page's Mailbox link, sees the address to send a check mail to (selectable whole), and presses
 * Approve on an agent's request: a plain form post (no script, under the console's CSP), after
 * which the agent holds the grant and the page lists it with Revoke.
 */

describe.skipIf(!installed)('the mailbox page in Chromium', () => {
  const suite = browserSuite({ server: { env: { CAIRN_MAIL_DOMAIN: 'mail.cairn.test' } } });

  it('approves an agent’s request to read the mail by pressing Approve', async () => {
    const email = await newOwner(suite.server);
    const lead = await newMember(suite.server, email);
    const campaignId = await campaignWith(lead, []);
    const asked = await ok(lead, 'campaign_mail_request_access', {
      campaign_id: campaignId,
      reason: 'Survey replies <b>arrive</b> by mail.',
    });
    const campaignPath = `/console/campaigns/${campaignId}`;
    const mailPath = `${campaignPath}/mail`;

    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    try {
      await openSignedIn(page, suite.server, email, campaignPath);
      await page.getByRole('link', { name: 'Mailbox', exact: true }).click();
      await page.waitForURL((url) => url.pathname === mailPath);

      const address = page.locator('#mail-address');
      await expect(address.innerText()).resolves.toMatch(/^moorland-survey-[a-z2-7]{8}@mail\.cairn\.test$/);
      await expect(address.evaluate((el) => getComputedStyle(el).userSelect)).resolves.toBe('all');
      await expect(page.locator('#check-instruction').innerText()).resolves.toBe('Send a check mail to');
      await expect(page.locator('#delivery-state').innerText()).resolves.toBe('UNVERIFIED');
      // The agent's reason is text: its markup-like words made no element.
      const request = page.locator(`#request-${asked.request_id as string}`);
      await expect(request.innerText()).resolves.toContain('Survey replies <b>arrive</b> by mail.');
      await expect(page.locator('main b').count()).resolves.toBe(0);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'mailbox.png'), fullPage: true });

      await request.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.waitForURL((url) => url.pathname === mailPath && url.search === '?done=approved');
      await expect(page.getByRole('status').first().innerText()).resolves.toContain('Approved.');
      await expect(page.locator(`#grant-${lead.agentId}`).innerText()).resolves.toContain(lead.agentId);
      await expect(page.locator(`#grant-${lead.agentId} button`).innerText()).resolves.toBe('Revoke');
      await expect(page.getByRole('button', { name: 'Approve', exact: true }).count()).resolves.toBe(0);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'mailbox-approved.png'), fullPage: true });

      const status = await ok(lead, 'campaign_mail_access_status', { campaign_id: campaignId }, false);
      expect(status.status).toBe('GRANTED');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await lead.client.close();
    }
  });
});
