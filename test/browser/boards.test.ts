import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, openSignedIn } from '../support/browser.ts';
import { campaignWith, conditions, newMember, publishTask } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf, SCREENSHOTS as SHOTS } from '../support/chromium.ts';

/**
 * Issue 19 item 5 (console): publishing a public board in a browser. The owner follows the
 * campaign page's "Publish a board" link, fills in slug and title, picks a purpose, ticks a
 * task (one that may not be listed is offered disabled, with why) and presses Publish board: a
 * plain form post (no script, under the console's CSP). The public JSON then lists the task.
 */

describe.skipIf(!installed)('publishing a board in Chromium', () => {
  const suite = browserSuite();

  it('publishes a board by clicking, and the public reads it', async () => {
    const email = await newOwner(suite.server);
    const lead = await newMember(suite.server, email);
    const campaignId = await campaignWith(lead, []);
    const open = { ...conditions(), participation: 'OPEN', publish_contract: true };
    const curlews = await publishTask(lead, campaignId, { conditions: open, title: 'Count the curlews' });
    const membersOnly = await publishTask(lead, campaignId, { title: 'Members only' });
    const campaignPath = `/console/campaigns/${campaignId}`;
    const slug = `moor-${Math.random().toString(36).slice(2, 10)}`;

    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    try {
      await openSignedIn(page, suite.server, email, campaignPath);
      await page.getByRole('link', { name: 'Publish a board', exact: true }).click();
      await page.waitForURL((url) => url.pathname === `${campaignPath}/boards/new`);

      await page.getByLabel('Slug').fill(slug);
      await page.getByLabel('Title').fill('Moorland <b>birds</b>');
      await page.getByLabel('DEMO', { exact: true }).check();
      await expect(page.locator(`#pick-${membersOnly}`).isDisabled()).resolves.toBe(true);
      await expect(page.locator(`#choice-${membersOnly}`).innerText()).resolves.toContain(
        'participation: OPEN',
      );
      await page.locator(`#pick-${curlews}`).check();
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'board-new.png'), fullPage: true });
      await page.getByRole('button', { name: 'Publish board', exact: true }).click();
      await page.waitForURL(
        (url) => url.pathname === `/console/boards/${slug}` && url.search === '?done=published',
      );

      await expect(page.getByRole('status').first().innerText()).resolves.toContain('Published.');
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toContain(
        'Moorland <b>birds</b>',
      );
      await expect(page.locator('main b').count()).resolves.toBe(0);
      const publicUrl = await page.locator('#public-url').getAttribute('href');
      expect(publicUrl).toBe(`${suite.server.url}/v1/public/boards/${slug}`);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'board.png'), fullPage: true });

      const res = await fetch(publicUrl ?? '');
      expect(res.status).toBe(200);
      const board = await res.json();
      expect(board).toMatchObject({
        slug,
        title: 'Moorland <b>birds</b>',
        purpose: 'DEMO',
        status: 'OPEN',
        tasks_listed: 1,
        tasks_available: 1,
      });
      expect(board.tasks).toEqual([expect.objectContaining({ title: 'Count the curlews', available: true })]);
      await expect(page.locator(`#ref-${board.tasks[0].task_ref}`).innerText()).resolves.toContain(curlews);

      await page.getByRole('link', { name: 'Boards', exact: true }).click();
      await page.waitForURL((url) => url.pathname === '/console/boards');
      await expect(page.locator(`#board-${slug}`).innerText()).resolves.toContain('OPEN');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'boards.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await lead.client.close();
    }
  });
});
