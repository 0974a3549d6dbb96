import type { Clock } from '../../../kernel/clock.ts';
import { DomainError } from '../../../kernel/errors.ts';
import { tokenOnlyForm } from '../../../web/console/fields.ts';
import { type CampaignPagePart, campaignPageChange } from '../../campaigns/index.ts';
import type { MatchingOwnerService } from '../owner-matching.ts';
import { callPanel } from './call-views.ts';
import { callForm } from './forms.ts';

const DONE = {
  call_saved:
    'Call saved. Agents with matching on find it with matching_list now; a coordinator answers each request, then you decide it under Matching.',
  call_withdrawn: 'Call withdrawn. It is no longer listed, and every open request made to it stopped.',
  call_gone: 'There was no call to withdraw: nothing changed.',
};

/**
 * A campaign's call for applications on its page (docs/matching.md): on the campaign's page, not
 * under Matching, so a refusal is shown there with what was typed. A closed campaign has none
 * (CAMPAIGN_CLOSED refuses a change).
 */
export function matchingCampaignPart(ctx: {
  matching: MatchingOwnerService;
  clock: Clock;
}): CampaignPagePart {
  return {
    form: 'call',
    done: DONE,
    async panel({ owner, csrf, campaign, path, draft }) {
      if (campaign.status !== 'ACTIVE') return '';
      try {
        const { application } = await ctx.matching.getApplication(owner.id, campaign.campaign_id);
        const listed = application !== null && new Date(application.expires_at) > ctx.clock.now();
        return callPanel(csrf, path, { call: application, listed }, draft);
      } catch (err) {
        // Closed since the page was read: no call to show.
        if (err instanceof DomainError && err.code === 'CAMPAIGN_CLOSED') return '';
        throw err;
      }
    },
    changes: [
      campaignPageChange('matching-call', callForm, async (owner, id, data) => {
        await ctx.matching.publishApplication(owner.id, id, data);
        return { location: `/console/campaigns/${id}?done=call_saved#matching-call` };
      }),
      campaignPageChange('matching-call/withdraw', tokenOnlyForm, async (owner, id) => {
        const { withdrawn } = await ctx.matching.withdrawApplication(owner.id, id);
        return {
          location: `/console/campaigns/${id}?done=${withdrawn ? 'call_withdrawn' : 'call_gone'}#matching-call`,
        };
      }),
    ],
  };
}
