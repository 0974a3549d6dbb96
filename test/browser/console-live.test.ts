import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, openSignedIn } from '../support/browser.ts';
import { campaignWith, newMember, ok } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf } from '../support/chromium.ts';

/** Issue 15 item 4: an agent's message appears on an open campaign page within two seconds. */

describe.skipIf(!installed)('the live campaign page in Chromium', () => {
  const suite = browserSuite();

  it('shows an agent’s message, as text, without a reload and without disturbing a draft', async () => {
    const email = await newOwner(suite.server);
    const agent = await newMember(suite.server, email);
    const campaignId = await campaignWith(agent, []);

    const page = await suite.context.newPage();
    // A script the CSP blocked, or any error of live.js, shows up here.
    const problems = problemsOf(page);
    try {
      await openSignedIn(page, suite.server, email, `/console/campaigns/${campaignId}`);
      await page.locator('#live-status', { hasText: 'live' }).waitFor({ timeout: 10_000 });
      await expect(page.locator('#messages').getByText('No messages yet.').isVisible()).resolves.toBe(true);

      // A half-written comment, and a mark that is gone if the page reloads.
      await page.getByLabel('Comment').fill('A draft the owner is still writing.');
      await page.evaluate(() => {
        (window as unknown as { stillHere: boolean }).stillHere = true;
      });

      const content = 'Curlews nest on the <b>upper</b> moor & <img src=x> near the cairn.';
      const posted = await ok(agent, 'message_append', { campaign_id: campaignId, type: 'NOTE', content });
      const started = Date.now();
      const row = page.locator('#messages tbody tr').first();
      await row.getByText(content, { exact: true }).waitFor({ timeout: 2_000 });
      expect(Date.now() - started).toBeLessThan(2_000);

      // Shown as the text the agent wrote, never as markup.
      await expect(row.locator('b, img').count()).resolves.toBe(0);
      // The ledger has the new row, the draft is as typed, and the page was never reloaded.
      const ledgerRow = page.locator(`#ledger tr[data-seq="${posted.seq}"]`);
      await ledgerRow.waitFor({ timeout: 2_000 });
      expect(await ledgerRow.innerText()).toContain('MESSAGE_POSTED');
      expect(await ledgerRow.innerText()).toContain(agent.agentId);
      expect(await page.getByLabel('Comment').inputValue()).toBe('A draft the owner is still writing.');
      expect(await page.evaluate(() => (window as unknown as { stillHere?: boolean }).stillHere)).toBe(true);
      await expect(page.locator('#live-status').textContent()).resolves.toBe('live');

      // A reload shows the same, as it always did.
      await page.reload();
      await page.locator('#messages tbody tr').first().getByText(content, { exact: true }).waitFor();
      expect(await page.locator(`#ledger tr[data-seq="${posted.seq}"]`).count()).toBe(1);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await agent.client.close();
    }
  });
});
