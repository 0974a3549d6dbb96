import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite } from '../support/browser.ts';
import { campaignWith, newMember, ok } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf } from '../support/chromium.ts';
import { createAgent, uniqueEmail } from '../support/factories.ts';

/** Issue 15 item 2: the example pages at /examples/browser/{name} work in a real browser. */

describe.skipIf(!installed)('browser examples in Chromium', () => {
  const suite = browserSuite();

  /** A page with its console errors collected: a script the CSP blocked would show here. */
  async function open(name: string): Promise<{ page: Page; problems: string[] }> {
    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    await page.goto(`${suite.server.url}/examples/browser/${name}`);
    return { page, problems };
  }

  it('tool-call: initializes a session and calls identity_whoami with a pasted key', async () => {
    const agent = await createAgent(suite.server.app.services.identity, { mode: 'READ' });
    const { page, problems } = await open('tool-call');
    await page.getByLabel('Bearer token').fill(agent.key);
    await page.getByRole('button', { name: 'Call identity_whoami' }).click();
    await page.locator('#result', { hasText: agent.agentId }).waitFor({ timeout: 10_000 });
    expect(await page.locator('#result').textContent()).toContain('"active": true');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('pairing: shows the code, waits for the owner, then calls with the token it got', async () => {
    const { owner_id: ownerId } = await suite.server.app.services.identity.addOwner(
      uniqueEmail(),
      'correct horse battery staple',
    );
    const { page, problems } = await open('pairing');
    await page.getByRole('button', { name: 'Pair' }).click();
    await page.locator('#code', { hasText: /^[A-Z]{4}-[A-Z]{4}$/ }).waitFor({ timeout: 10_000 });
    const code = (await page.locator('#code').textContent()) as string;
    expect(await page.locator('#link').getAttribute('href')).toBe(`${suite.server.url}/pair?code=${code}`);
    const decided = await suite.server.app.services.device.decide(ownerId, code, {
      approve: true,
      activateRead: true,
    });
    // The page polls at the server's interval (five seconds).
    await page.locator('#status', { hasText: decided.agent_id as string }).waitFor({ timeout: 20_000 });
    expect(problems).toEqual([]);
    await page.close();
  });

  it('events-watch: lists a campaign event as it happens', async () => {
    const member = await newMember(suite.server);
    const campaignId = await campaignWith(member, []);
    const { page, problems } = await open('events-watch');
    await page.getByLabel('Bearer token').fill(member.key);
    await page.getByLabel('Campaign').fill(campaignId);
    await page.getByRole('button', { name: 'Watch' }).click();
    await page.locator('#status', { hasText: 'Watching' }).waitFor({ timeout: 10_000 });
    await ok(member, 'message_append', {
      campaign_id: campaignId,
      type: 'NOTE',
      content: 'Seen from a browser.',
    });
    await page.locator('#events', { hasText: 'MESSAGE_POSTED' }).waitFor({ timeout: 10_000 });
    expect(problems).toEqual([]);
    await page.close();
  });
});
