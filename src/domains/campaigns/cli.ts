import { z } from 'zod';
import { type CliDoor, defineCommand } from '../../framework/index.ts';
import type { FundsService } from '../funds/index.ts';
import { closeByOperator } from './campaign-close.ts';
import { resumeByOperator, stopByOperator } from './membership/campaign-stop.ts';
import { RewardOwnerService } from './rewards/owner-rewards.ts';

/**
 * Campaigns' operator commands: the books check of task rewards, and stopping, resuming and
 * closing a campaign on its owner's behalf (docs/campaign-lifecycle.md).
 */

interface CampaignCliServices {
  rewards: RewardOwnerService;
  campaigns: {
    close(campaignId: string, reason?: string): Promise<object>;
    stop(campaignId: string, reason?: string): Promise<object>;
    resume(campaignId: string): Promise<object>;
  };
}

const define = defineCommand<CampaignCliServices & { funds: FundsService }>();

const campaignIdFlag = z
  .string()
  .trim()
  .regex(/^cmp_[0-9A-Za-z]{1,64}$/, 'must be a campaign id (cmp_…)');

const CAMPAIGN_COMMANDS = {
  'rewards check': define({
    usage:
      'cairn rewards check [--json]   (recomputes every balance from postings, proves each currency sums to zero and every escrow matches its task; exit 1 on any finding)',
    flags: z.object({}).strict(),
    run: async ({ funds, rewards }) => {
      const books = await funds.check();
      const tasks = await rewards.check();
      return { ok: books.ok && tasks.ok, funds: books, rewards: tasks };
    },
  }),
  'campaign close': define({
    usage:
      'cairn campaign close --campaign ID [--reason R] [--json]   (closes it for its owner of record: unfinished tasks are cancelled and refunded, boards withdrawn; docs/campaign-lifecycle.md)',
    flags: z
      .object({
        campaign: campaignIdFlag,
        reason: z.string().trim().min(1).max(500).optional(),
      })
      .strict(),
    run: ({ campaigns }, f) => campaigns.close(f.campaign, f.reason),
  }),
  'campaign stop': define({
    usage:
      'cairn campaign stop --campaign ID [--reason R] [--json]   (running leases finish; no new claims, tasks, members, mail or board entries; then resume or close it)',
    flags: z
      .object({ campaign: campaignIdFlag, reason: z.string().trim().min(1).max(500).optional() })
      .strict(),
    run: ({ campaigns }, f) => campaigns.stop(f.campaign, f.reason),
  }),
  'campaign resume': define({
    usage: 'cairn campaign resume --campaign ID [--json]   (a stopped campaign takes new work again)',
    flags: z.object({ campaign: campaignIdFlag }).strict(),
    run: ({ campaigns }, f) => campaigns.resume(f.campaign),
  }),
};

export const campaignCli: CliDoor<CampaignCliServices, CampaignCliServices & { funds: FundsService }> = {
  // The CLI signs no cursors, so the service gets no server secret.
  services: ({ database, clock, config }) => ({
    rewards: new RewardOwnerService(database, clock, '', config.baseUrl),
    campaigns: {
      close: (id, reason) => closeByOperator(database, clock, id, reason),
      stop: (id, reason) => stopByOperator(database, clock, id, reason),
      resume: (id) => resumeByOperator(database, clock, id),
    },
  }),
  commands: CAMPAIGN_COMMANDS,
};
