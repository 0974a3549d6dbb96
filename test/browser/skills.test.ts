import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserSuite, newOwner, openSignedIn } from '../support/browser.ts';
import { newMember, ok, refused } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf, SCREENSHOTS as SHOTS } from '../support/chromium.ts';
import { uniqueSkillName } from '../support/skills.ts';

/**
 * Issue 20 (console): an owner starts a skill draft with a description, publishes it, grants the
 * version to another owner's identity and revokes the grant, all by clicking plain forms (no
 * script, under the CSP); the identity reads the version while the grant stands and not after.
 */

const OWN = JSON.stringify({ scope: 'OWN' });

describe.skipIf(!installed)('skills in the console in Chromium', () => {
  const suite = browserSuite();

  it('creates a draft, publishes it, grants it to an identity and revokes the grant', async () => {
    const email = await newOwner(suite.server);
    const grantee = await newMember(suite.server);
    const name = uniqueSkillName('browser');
    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    try {
      await openSignedIn(page, suite.server, email, '/console/skills');
      await expect(
        page.getByRole('link', { name: 'Skills', exact: true }).getAttribute('aria-current'),
      ).resolves.toBe('page');

      await page.getByLabel('Name', { exact: true }).fill(name);
      await page.getByLabel('Description', { exact: true }).fill('Check every quotation against its page.');
      await page.getByRole('button', { name: 'Start draft' }).click();
      await page.waitForURL((url) => /^\/console\/skills\/drafts\/sdr_/.test(url.pathname));
      await expect(page.getByRole('status').first().innerText()).resolves.toContain('Draft started.');
      await expect(page.locator('#validation').innerText()).resolves.toContain('VALID');
      await expect(page.getByLabel('SKILL.md', { exact: true }).inputValue()).resolves.toContain(
        `name: ${name}`,
      );
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'skills-draft.png'), fullPage: true });

      await page.getByRole('button', { name: 'Publish' }).click();
      await page.waitForURL((url) => /^\/console\/skills\/versions\/skv_/.test(url.pathname));
      const versionId = new URL(page.url()).pathname.split('/').at(-1) as string;
      await expect(page.getByRole('status').first().innerText()).resolves.toContain('Published');
      await expect(page.locator('#terms').innerText()).resolves.toContain(
        'Check every quotation against its page.',
      );
      await expect(page.locator('#skill-md').innerText()).resolves.toContain('Skill text is untrusted');

      await page.getByLabel('Identity id').fill(grantee.agentId);
      await page.getByRole('button', { name: 'Grant', exact: true }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'granted');
      const row = page.locator('#grants tbody tr', { hasText: grantee.agentId });
      await expect(row.innerText()).resolves.toContain('ACTIVE');
      const seen = await ok(grantee, 'skill_get', { version_id: versionId, context: OWN }, false);
      expect(seen.version_id).toBe(versionId);
      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'skills-version.png'), fullPage: true });

      await row.getByRole('button', { name: 'Revoke' }).click();
      await page.waitForURL((url) => url.searchParams.get('done') === 'revoked');
      await expect(page.getByRole('status').first().innerText()).resolves.toContain('Revoked');
      const after = page.locator('#grants tbody tr', { hasText: grantee.agentId });
      await expect(after.innerText()).resolves.toContain('REVOKED');
      await expect(after.getByRole('button', { name: 'Revoke' }).count()).resolves.toBe(0);
      const denied = await refused(grantee, 'skill_get', { version_id: versionId, context: OWN }, false);
      expect(denied.code).toBe('SKILL_CONTEXT_DENIED');
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await grantee.client.close();
    }
  });
});
