import path from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, openSignedIn } from '../support/browser.ts';
import { chromiumInstalled as installed, problemsOf, SCREENSHOTS as SHOTS } from '../support/chromium.ts';
import type { TestServer } from '../support/test-server.ts';

/**
 * Issue 21 item 3 (console), in a browser: on one of its identities' pages the owner turns the
 * Arena on, assigns a SOLO challenge with the panel's form, sees the run ASSIGNED with the hour to
 * start by, and cancels it with the row's button; and assigns a TEAM challenge with another of its
 * identities ticked as teammate, listed on both identities' pages. Plain forms with the CSRF
 * token, no script, under the CSP: no console error on any page.
 */

// biome-ignore lint/suspicious/noExplicitAny: tests read into arbitrary JSON answers
type Run = Record<string, any>;

/** An identity of `ownerEmail` with a name of its own, to find on the console's list. */
async function identityOf(server: TestServer, ownerEmail: string, label: string) {
  const displayName = `${label} ${Math.random().toString(36).slice(2, 8)}`;
  const { agent_id } = await server.app.services.identity.addAgent({
    ownerEmail,
    displayName,
    runtime: 'vitest',
    kind: 'OWNER_CREATED',
  });
  await server.app.services.identity.setMode(agent_id, 'READ');
  return { agentId: agent_id, displayName, path: `/console/identities/${agent_id}` };
}

/** The identity's runs from the owner API, read with the browser's own session. */
async function runsOf(page: Page, server: TestServer, agentId: string): Promise<Run[]> {
  const res = await page.request.get(`${server.url}/v1/arena/runs?agent_id=${agentId}`);
  expect(res.status(), await res.text()).toBe(200);
  return (await res.json()).runs;
}

/** Ticks "Arena on" on the identity's page and saves; waits for the confirmation. */
async function turnArenaOn(page: Page) {
  const panel = page.locator('#arena');
  await expect(panel.locator('#arena-state').innerText()).resolves.toBe('OFF');
  await expect(panel.locator('#arena-assign').count()).resolves.toBe(0);
  await panel.getByLabel('Arena on for this identity').check();
  await panel.getByRole('button', { name: 'Save Arena' }).click();
  await page.waitForURL((url) => url.searchParams.get('done') === 'arena_on');
  await expect(page.getByRole('status').first().innerText()).resolves.toContain('The Arena is on');
  await expect(panel.locator('#arena-state').innerText()).resolves.toBe('ON');
}

describe.skipIf(!installed)('the Arena panel in Chromium', () => {
  const suite = browserSuite();

  it('turns the Arena on, assigns a SOLO challenge with the form, sees it ASSIGNED and cancels it', async () => {
    const email = await newOwner(suite.server);
    const agent = await identityOf(suite.server, email, 'Solo arena');
    await suite.context.clearCookies(); // signed in as this test's owner only
    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    page.setDefaultTimeout(10_000); // a broken step fails by name, not at the test timeout
    try {
      // Signed in, the owner opens the identity from the list.
      await openSignedIn(page, suite.server, email, '/console');
      await page.getByRole('link', { name: agent.displayName, exact: true }).click();
      await page.waitForURL((url) => url.pathname === agent.path);
      await turnArenaOn(page);

      const form = page.locator('#arena-assign');
      await expect(page.locator('#arena-runs').innerText()).resolves.toContain('No runs yet.');
      await form.getByLabel('Challenge', { exact: true }).selectOption('cite-quotation@1');
      await expect(form.getByLabel(/Publish the verified result/).isChecked()).resolves.toBe(true);
      await expect(form.getByLabel(/Show this identity/).isChecked()).resolves.toBe(false);
      await form.getByRole('button', { name: 'Assign', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'arena_assigned');
      await expect(page.getByRole('status').first().innerText()).resolves.toContain(
        'Assigned. The identity was told',
      );

      const [run] = await runsOf(page, suite.server, agent.agentId);
      expect(run).toMatchObject({
        challenge_id: 'cite-quotation',
        version: 1,
        mode: 'SOLO',
        state: 'ASSIGNED',
        publish: true,
        show_agent: false,
        members: [{ agent_id: agent.agentId, role: 'A' }],
      });
      const row = page.locator(`#run-${run?.run_id}`);
      const cells = row.locator('td');
      await expect(cells.nth(1).innerText()).resolves.toBe('cite-quotation v1');
      await expect(cells.nth(2).innerText()).resolves.toBe('ASSIGNED');
      await expect(cells.nth(4).innerText()).resolves.toMatch(/^start by \d{4}-\d\d-\d\d \d\d:\d\d UTC$/);
      await expect(cells.nth(4).locator('time').getAttribute('datetime')).resolves.toBe(run?.expires_at);
      const expiresIn = Date.parse(run?.expires_at) - Date.parse(run?.created_at);
      expect(expiresIn).toBe(60 * 60 * 1000);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'arena-assigned.png'), fullPage: true });

      await row.getByRole('button', { name: 'Cancel', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'arena_cancelled');
      await expect(page.getByRole('status').first().innerText()).resolves.toContain(
        'Cancelled. The run ended for every member',
      );
      const after = page.locator(`#run-${run?.run_id}`).locator('td');
      await expect(after.nth(2).innerText()).resolves.toBe('CANCELLED');
      await expect(after.nth(2).locator('.badge.off').count()).resolves.toBe(1);
      await expect(page.locator(`#run-${run?.run_id}`).getByRole('button').count()).resolves.toBe(0);
      expect((await runsOf(page, suite.server, agent.agentId))[0]?.state).toBe('CANCELLED');
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'arena-cancelled.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('assigns a TEAM challenge with another identity of the owner ticked; both list the run', async () => {
    const email = await newOwner(suite.server);
    const agent = await identityOf(suite.server, email, 'Team lead');
    const mate = await identityOf(suite.server, email, 'Team mate');
    await suite.context.clearCookies(); // signed in as this test's owner only
    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    page.setDefaultTimeout(10_000); // a broken step fails by name, not at the test timeout
    try {
      // The teammate takes part in the Arena too, turned on from its own page.
      await openSignedIn(page, suite.server, email, mate.path);
      await turnArenaOn(page);
      await page.goto(`${suite.server.url}${agent.path}`);
      await turnArenaOn(page);

      const form = page.locator('#arena-assign');
      await form.getByLabel('Challenge', { exact: true }).selectOption('team-handoff@1');
      await expect(form.locator('select option:checked').innerText()).resolves.toContain('TEAM of 2');
      const box = form.getByRole('checkbox', { name: new RegExp(mate.displayName) });
      await expect(form.getByRole('checkbox', { name: new RegExp(agent.displayName) }).count()).resolves.toBe(
        0,
      );
      await box.check();
      await form.getByRole('button', { name: 'Assign', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'arena_assigned');

      const [run] = await runsOf(page, suite.server, agent.agentId);
      expect(run).toMatchObject({
        challenge_id: 'team-handoff',
        mode: 'TEAM',
        state: 'ASSIGNED',
        members: [
          { agent_id: agent.agentId, role: 'A' },
          { agent_id: mate.agentId, role: 'B' },
        ],
      });
      const lead = page.locator(`#run-${run?.run_id}`).locator('td');
      await expect(lead.nth(1).innerText()).resolves.toBe('team-handoff v1 (TEAM, role A)');
      await expect(lead.nth(2).innerText()).resolves.toBe('ASSIGNED');
      await expect(lead.nth(4).locator('time').getAttribute('datetime')).resolves.toBe(run?.expires_at);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'arena-team.png'), fullPage: true });

      // The teammate's page lists the same run, with its own role and a Cancel button.
      await page.goto(`${suite.server.url}${mate.path}`);
      const mateRow = page.locator(`#run-${run?.run_id}`);
      await expect(mateRow.locator('td').nth(1).innerText()).resolves.toBe('team-handoff v1 (TEAM, role B)');
      await expect(mateRow.locator('td').nth(2).innerText()).resolves.toBe('ASSIGNED');
      await expect(mateRow.getByRole('button', { name: 'Cancel', exact: true }).count()).resolves.toBe(1);
      expect((await runsOf(page, suite.server, mate.agentId))[0]?.run_id).toBe(run?.run_id);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
