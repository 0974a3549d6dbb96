import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserSuite, newOwner, PASSWORD } from '../support/browser.ts';
import { campaignWith, conditions, key, newMember, ok } from '../support/campaigns.ts';
import {
  chromiumInstalled as installed,
  problemsOf,
  SCREENSHOTS as SHOTS,
  signIn,
} from '../support/chromium.ts';
import { callTool } from '../support/factories.ts';
import { ARTICLE_QUOTE, type FixtureSite, startFixtureSite } from '../support/fixture-site.ts';
import { balance, credit } from '../support/rewards.ts';

/**
 * Issue 17 (console): the approval page a release request links to, in a browser. The owner
 * follows the approval_url, signs in, reads the quotations Cairn found in the worker's own
 * read, and presses Approve: a plain form post (no script), after which the page says APPROVED
 * and the worker's owner holds the reward.
 */

describe.skipIf(!installed)('the approval page in Chromium', () => {
  let site: FixtureSite;
  // Registered before browserSuite: the site starts before the server that reads its env, and closes after it.
  beforeAll(async () => {
    site = await startFixtureSite();
  });
  afterAll(async () => {
    await site?.close();
  });
  const suite = browserSuite({ server: () => ({ env: site.env }) });

  it('shows the quotes and approves the release', async () => {
    const email = await newOwner(suite.server);
    const lead = await newMember(suite.server, email);
    const worker = await newMember(suite.server);
    const campaignId = await campaignWith(lead, [worker]);
    await credit(suite.server, lead, 'POINTS', 500);
    const published = await ok(lead, 'task_publish', {
      campaign_id: campaignId,
      title: 'Paid <b>fact</b>',
      objective: 'Find one verifiable fact.',
      acceptance: 'A quotation that matches a recorded source.',
      conditions: conditions(),
      reward_points: 200,
    });
    const taskId = published.task_id as string;
    const claimed = await ok(worker, 'task_claim', { task_id: taskId });
    const read = await callTool(worker.client, 'fetch_text', {
      url: `${site.origin}/article`,
      declared_purpose: 'Checking facts for the paid task.',
      task_id: taskId,
    });
    const done = await callTool(worker.client, 'task_complete', {
      task_id: taskId,
      lease_id: claimed.lease.lease_id,
      evidence_ids: [read.body.evidence_id],
      claimed_outcome: 'COMPLETE',
      summary: `The article states "${ARTICLE_QUOTE}" <i>verbatim</i>.`,
      idempotency_key: key(),
    });
    expect(done.body.task_status, JSON.stringify(done.body)).toBe('VERIFIED');
    const asked = await ok(worker, 'reward_release', { task_id: taskId, action: 'RELEASE' });
    const approvalPath = `/console/rewards/approvals/${asked.approval_id as string}`;

    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    try {
      // The approval_url agents pass on: signing in brings the owner back to it.
      await page.goto(asked.approval_url as string);
      await signIn(page, email, PASSWORD);
      await page.waitForURL((url) => url.pathname === approvalPath);

      await expect(page.locator('#matched-quotes').innerText()).resolves.toContain(ARTICLE_QUOTE);
      // What the agents wrote is text: its markup-like words made no element.
      await expect(page.locator('#task dd').first().innerText()).resolves.toContain('Paid <b>fact</b>');
      await expect(page.locator('.summary').innerText()).resolves.toContain('<i>verbatim</i>');
      await expect(page.locator('main b, main i').count()).resolves.toBe(0);
      await expect(page.locator('#evidence a').count()).resolves.toBe(1);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'reward-approval.png'), fullPage: true });

      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.waitForURL((url) => url.pathname === approvalPath && url.search === '?done=approved');
      await expect(page.locator('#approval-status').innerText()).resolves.toBe('APPROVED');
      await expect(page.getByRole('status').first().innerText()).resolves.toContain('Approved.');
      await expect(page.getByRole('button', { name: 'Approve', exact: true }).count()).resolves.toBe(0);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'reward-approved.png'), fullPage: true });
      expect(await balance(suite.server, worker, 'POINTS')).toBe(200);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await lead.client.close();
      await worker.client.close();
    }
  });
});
