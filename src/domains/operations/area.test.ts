import { describe, expect, it } from 'vitest';
import { noCompletionGate } from '../campaigns/types.ts';
import { noCampaignLinks, noGuestPairing, noStanding } from '../identity/index.ts';
import { noCampaigns } from '../reading/index.ts';
import { type Area, type Core, gatherExtensions, startAreas } from './area.ts';

const area = (name: string, services: object, extras: Partial<Area> = {}): Area => ({
  name,
  tables: {},
  errors: {},
  operations: [],
  start: () => ({ services }),
  ...extras,
});
const defaults = {
  callerStanding: noStanding,
  campaignLinks: noCampaignLinks,
  readCoverage: noCampaigns,
  guestPairing: noGuestPairing,
  completionGate: noCompletionGate,
};

describe('the area contract', () => {
  it('joins the areas services, and refuses one service name offered twice', async () => {
    const core = {} as Core;
    const joined = await startAreas<Record<string, unknown>>(
      [area('a', { x: 1 }), area('b', { y: 2 })],
      core,
    );
    expect(joined.services).toEqual({ x: 1, y: 2 });
    await expect(startAreas([area('a', { x: 1 }), area('b', { x: 2 })], core)).rejects.toThrow(
      /Service x of b is already offered/,
    );
  });

  it('gathers extensions over their defaults, and refuses two providers of one', () => {
    const coverage = { ...noCampaigns };
    expect(gatherExtensions([area('a', {}, { extensions: { readCoverage: coverage } })], defaults)).toEqual({
      callerStanding: noStanding,
      campaignLinks: noCampaignLinks,
      readCoverage: coverage,
      guestPairing: noGuestPairing,
      completionGate: noCompletionGate,
    });
    expect(() =>
      gatherExtensions(
        [
          area('a', {}, { extensions: { readCoverage: coverage } }),
          area('b', {}, { extensions: { readCoverage: noCampaigns } }),
        ],
        defaults,
      ),
    ).toThrow(/readCoverage is provided by both a and b/);
  });
});
