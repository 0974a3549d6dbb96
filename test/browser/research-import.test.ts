import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, openSignedIn, PASSWORD } from '../support/browser.ts';
import { campaignWith, newMember, ok, publishTask } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf, signIn } from '../support/chromium.ts';

/**
 * Issue 16: the console's import page. Signed in, the owner opens it from the campaign page,
 * uploads a small text file for one of the campaign's tasks, sees the evidence id and opens the
 * preview; the campaign's agents can read the import.
 */

describe.skipIf(!installed)('the import page in Chromium', () => {
  const suite = browserSuite();

  it('imports a text file for a task, shows its evidence id and opens its preview', async () => {
    const email = await newOwner(suite.server);
    const agent = await newMember(suite.server, email);
    const campaignId = await campaignWith(agent, []);
    const taskId = await publishTask(agent, campaignId, { title: 'Check the nest counts' });

    const page = await suite.context.newPage();
    // A script the CSP blocked, or any error of import.js, shows up here.
    const problems = problemsOf(page);
    try {
      await openSignedIn(page, suite.server, email, `/console/campaigns/${campaignId}`);

      await page.getByRole('link', { name: 'Import a file' }).click();
      await page.waitForURL((url) => url.pathname === '/console/research/import');
      // The script took over: the "needs JavaScript" notice is gone and the button works.
      await expect(page.locator('#import-needs-js').count()).resolves.toBe(0);
      await expect(page.getByRole('button', { name: 'Import' }).isEnabled()).resolves.toBe(true);
      await expect(page.getByLabel('Campaign', { exact: true }).inputValue()).resolves.toBe(campaignId);

      const text = 'Nest survey, upper moor: four curlew nests, <b>two</b> with eggs & one empty.\n';
      await page.getByLabel('File', { exact: true }).setInputFiles({
        name: 'survey.txt',
        mimeType: 'text/plain',
        buffer: Buffer.from(text, 'utf8'),
      });
      await page.getByLabel('Title', { exact: true }).fill('Upper moor nest survey');
      await page.getByLabel('Source date').fill('2026-05-03');
      await page.getByLabel('I had the right').check();
      // Choosing the campaign again reloads its tasks from task-choices (the session's cookie).
      const campaignSelect = page.getByLabel('Campaign', { exact: true });
      await campaignSelect.selectOption('');
      await expect(page.locator('#import_task option').count()).resolves.toBe(1);
      await campaignSelect.selectOption(campaignId);
      await page.locator(`#import_task option[value="${taskId}"]`).waitFor({ state: 'attached' });
      await page.getByLabel('Task', { exact: true }).selectOption(taskId);
      await page.getByRole('button', { name: 'Import' }).click();

      const id = page.locator('#import-evidence-id');
      await id.waitFor({ timeout: 15_000 });
      const evidenceId = (await id.textContent()) ?? '';
      expect(evidenceId).toMatch(/^evd_/);
      await expect(page.locator('#import-result').innerText()).resolves.toContain('UNVERIFIED');

      // The campaign's agent sees the import, for the task chosen.
      const seen = (await ok(agent, 'evidence_get', { evidence_id: evidenceId }, false)).evidence;
      expect(seen).toMatchObject({ provenance: 'OWNER_IMPORT', trust_label: 'UNVERIFIED' });
      await expect(page.locator('#import-result').innerText()).resolves.toContain(`task ${taskId}`);

      await page.getByRole('link', { name: 'Open the preview' }).click();
      await page.waitForURL((url) => url.pathname === `/console/research/evidence/${evidenceId}`);
      await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe(
        'Upper moor nest survey',
      );
      // The file's text, as text: its markup-like words are not markup.
      await expect(page.getByLabel(/Text of page 1/).inputValue()).resolves.toBe(text);
      await expect(page.locator('main b').count()).resolves.toBe(0);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await agent.client.close();
    }
  });

  it('says that importing needs JavaScript when its script does not run', async () => {
    const email = await newOwner(suite.server);
    const page = await suite.context.newPage();
    // As with scripts off or blocked: the page as the server sent it.
    await page.route('**/console/import.js', (route) => route.abort());
    try {
      await page.goto(`${suite.server.url}/console/research/import`);
      if (new URL(page.url()).pathname !== '/console/research/import') {
        await signIn(page, email, PASSWORD);
        await page.waitForURL((url) => url.pathname === '/console/research/import');
      }
      await expect(page.locator('#import-needs-js').innerText()).resolves.toContain('needs JavaScript');
      await expect(page.getByRole('button', { name: 'Import' }).isDisabled()).resolves.toBe(true);
    } finally {
      await page.close();
    }
  });
});
