import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TLP_MARKING_IDS } from '../../src/domains/research/index.ts';
import { browserSuite, newOwner, openSignedIn } from '../support/browser.ts';
import { campaignWith, newMember, ok } from '../support/campaigns.ts';
import { chromiumInstalled as installed, problemsOf, SCREENSHOTS as SHOTS } from '../support/chromium.ts';

/**
 * Issue 16 item 4: the console's findings page in a browser. Signed in, the owner opens it from
 * the campaign page, ticks a finding and presses the download button: a plain form post (no
 * script) whose answer the browser saves as a file holding a STIX bundle.
 */

describe.skipIf(!installed)('the findings page in Chromium', () => {
  const suite = browserSuite({ browser: { acceptDownloads: true } });

  it('ticks a finding and downloads its STIX bundle', async () => {
    const email = await newOwner(suite.server);
    const lead = await newMember(suite.server, email);
    const author = await newMember(suite.server);
    const campaignId = await campaignWith(lead, [author]);
    const { token } = await suite.server.app.services.identity.addOwnerToken(email, 'browser', 1);
    const imported = await fetch(`${suite.server.url}/v1/research/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        text: 'Advisory: libmoor 2.0 to 2.4 accepts crafted headers.',
        campaign_id: campaignId,
      }),
    });
    const sourceId = (await imported.json()).evidence_id as string;
    const finding = await ok(author, 'finding_create', {
      campaign_id: campaignId,
      claim: 'libmoor 2.0-2.4 <em>accepts</em> crafted headers.',
      evidence_ids: [sourceId],
    });

    const page = await suite.context.newPage();
    const problems = problemsOf(page);
    try {
      await openSignedIn(page, suite.server, email, `/console/campaigns/${campaignId}`);

      await page.getByRole('link', { name: 'Findings', exact: true }).click();
      await page.waitForURL((url) => url.pathname === `/console/campaigns/${campaignId}/findings`);
      // The claim is text: its markup-like words made no element.
      await expect(page.locator(`#finding-${finding.finding_id} .claim`).innerText()).resolves.toBe(
        'libmoor 2.0-2.4 <em>accepts</em> crafted headers.',
      );
      await expect(page.locator('main em').count()).resolves.toBe(0);

      if (SHOTS) await page.screenshot({ path: path.join(SHOTS, 'research-findings.png'), fullPage: true });
      await page.getByLabel(`Include ${finding.finding_id} in the STIX download`).check();
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.getByRole('button', { name: 'Download STIX bundle' }).click(),
      ]);
      expect(download.suggestedFilename()).toBe(`${campaignId}.stix.json`);
      const saved = await download.path();
      const bundle = JSON.parse(readFileSync(saved, 'utf8'));
      expect(bundle.type).toBe('bundle');
      expect(bundle.id).toMatch(/^bundle--/);
      const types = (bundle.objects as Array<{ type: string; id: string }>).map((o) => o.type);
      expect(types).toContain('note');
      expect(types).toContain('report');
      expect(bundle.objects.map((o: { id: string }) => o.id)).toContain(TLP_MARKING_IDS['TLP:AMBER']);
      // The page itself stayed where it was.
      expect(new URL(page.url()).pathname).toBe(`/console/campaigns/${campaignId}/findings`);
      expect(problems).toEqual([]);
    } finally {
      await page.close();
      await lead.client.close();
      await author.client.close();
    }
  });
});
