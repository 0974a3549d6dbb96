import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, PASSWORD } from '../support/browser.ts';
import { chromiumInstalled as installed, SCREENSHOTS as SHOTS } from '../support/chromium.ts';
import { callTool, connectClient, createAgent } from '../support/factories.ts';

describe.skipIf(!installed)('campaigns run from the console in Chromium', () => {
  const suite = browserSuite();

  it('signs in, creates a campaign, posts an OWNER_COMMENT and sees it listed as text', async () => {
    const email = await newOwner(suite.server);
    const agent = await createAgent(suite.server.app.services.identity, { mode: 'READ', ownerEmail: email });

    const page = await suite.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    try {
      await page.goto(`${suite.server.url}/console/campaigns/new`);
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/console/campaigns/new');

      await page.getByLabel('Title').fill('Moorland survey');
      await page.getByLabel('Objective').fill('Find and verify facts about moorland birds.');
      await page.getByLabel('Budget (optional)').fill('120');
      await page.getByLabel('Unit').selectOption('POINTS');
      await page.getByLabel('Scopes (optional, one per line, up to 50)').fill('rspb.org.uk\nbto.org');
      await page.getByLabel('Let any active member publish tasks').check();
      await page.getByLabel('BLIND_EXPERIMENT').check();
      await page.getByLabel('Participation').selectOption('APPLICATION');
      await page.getByLabel('First coordinator').selectOption(agent.agentId);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'campaign-new.png'), fullPage: true });
      await page.getByRole('button', { name: 'Create campaign' }).click();
      await page.waitForURL((url) => /^\/console\/campaigns\/cmp_/.test(url.pathname));
      const campaignId = new URL(page.url()).pathname.split('/').at(-1) as string;

      await expect(page.getByRole('heading', { name: /Moorland survey/ }).isVisible()).resolves.toBe(true);
      await expect(page.getByText('Campaign created.').isVisible()).resolves.toBe(true);
      const settings = await page.locator('#settings').innerText();
      expect(settings).toContain('BLIND_EXPERIMENT');
      expect(settings).toContain('120 POINTS');
      expect(settings).toContain('APPLICATION');

      const comment = 'Start with <b>the RSPB</b> pages.';
      await page.getByLabel('Type').selectOption('QUESTION');
      await page.getByLabel('Comment').fill(comment);
      await page.getByRole('button', { name: 'Post comment' }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'posted');

      // The comment is listed as the text that was typed, not as markup.
      const row = page.locator('#messages tbody tr').first();
      await expect(row.getByText(comment, { exact: true }).isVisible()).resolves.toBe(true);
      await expect(row.getByText('OWNER_COMMENT').isVisible()).resolves.toBe(true);
      await expect(row.locator('b').count()).resolves.toBe(0);
      await expect(page.locator('#ledger').getByText('MESSAGE_POSTED').isVisible()).resolves.toBe(true);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'campaign.png'), fullPage: true });

      // The coordinator reads the same comment over MCP.
      const client = await connectClient(suite.server.url, agent.key);
      const read = await callTool(client, 'context_read', { campaign_id: campaignId });
      expect(read.body.messages).toEqual([
        expect.objectContaining({ type: 'QUESTION', label: 'OWNER_COMMENT', content: comment }),
      ]);

      // The owner stops it first: running work may finish, nothing new starts; then resumes it.
      await page.getByLabel('Why stop (optional, shown to members)').fill('wrapping up');
      await page.getByRole('button', { name: 'Stop campaign' }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'stopped');
      await expect(page.locator('#stopping-since').innerText()).resolves.toContain('wrapping up');
      await expect(page.getByRole('heading', { name: /Moorland survey/ }).innerText()).resolves.toContain(
        'stopping',
      );
      const stopped = await callTool(client, 'campaign_status', { campaign_id: campaignId });
      expect(stopped.body).toMatchObject({ status: 'STOPPING', stop_reason: 'wrapping up' });
      await page.getByRole('button', { name: 'Resume campaign' }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'resumed');
      await expect(page.getByRole('heading', { name: /Moorland survey/ }).innerText()).resolves.toContain(
        'active',
      );

      // The owner closes it at the foot of the page, ticking the box that says it is final.
      await page.getByLabel('Reason (optional, shown to members)').fill('survey finished');
      await page.getByLabel('I understand it cannot be reopened').check();
      await page.getByRole('button', { name: 'Close campaign' }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'closed');
      await expect(page.locator('#close').innerText()).resolves.toContain('survey finished');
      const status = await callTool(client, 'campaign_status', { campaign_id: campaignId });
      expect(status.body).toMatchObject({ status: 'CLOSED', close_reason: 'survey finished' });
      await client.close();

      await page.getByRole('link', { name: 'Campaigns', exact: true }).click();
      await page.getByRole('link', { name: 'Moorland survey' }).waitFor();
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
