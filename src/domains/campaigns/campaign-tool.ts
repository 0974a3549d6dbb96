import type { z } from 'zod';
import {
  type Audience,
  defineTool,
  type Operation,
  type OperationContext,
  type ToolSpec,
} from '../../framework/index.ts';
import { type Membership, requireMembership } from './core/member.ts';
import {
  COORDINATOR_VISIBLE_WHEN,
  ENTRY_VISIBLE_WHEN,
  MEMBER_VISIBLE_WHEN,
  RECORD_READER_VISIBLE_WHEN,
  whenCampaignEntry,
  whenCoordinator,
  whenMember,
  whenRecordReader,
} from './policy.ts';
import { campaignIdArg } from './schemas.ts';
import type { CampaignServices } from './services.ts';

/** Active members of at least one campaign (most Campaigns tools). */
export const MEMBERS: Audience = { visibleWhen: MEMBER_VISIBLE_WHEN, visibility: whenMember };
/** Members of open or closed campaigns: the tools that only read (a closed campaign's records stay readable). */
export const RECORD_READERS: Audience = {
  visibleWhen: RECORD_READER_VISIBLE_WHEN,
  visibility: whenRecordReader,
};
/** Coordinators of at least one campaign (inviting, decisions). */
export const COORDINATORS: Audience = { visibleWhen: COORDINATOR_VISIBLE_WHEN, visibility: whenCoordinator };
/** Reading identities, members and invitees: the way into campaigns. */
export const ENTRANTS: Audience = { visibleWhen: ENTRY_VISIBLE_WHEN, visibility: whenCampaignEntry };

const optionalCampaign = { campaign_id: campaignIdArg.optional() };
type WithCampaign<A extends z.ZodRawShape> = typeof optionalCampaign & A;
type Input<A extends z.ZodRawShape> = Parameters<
  ToolSpec<CampaignServices, WithCampaign<A>, unknown>['handler']
>[1];

/**
 * The services a campaign tool reaches: campaigns' own, and those of the area defining it (the
 * mail area's tools are campaign tools with its services too).
 */
interface CampaignToolSpec<A extends z.ZodRawShape, O, S extends CampaignServices = CampaignServices> {
  name: string;
  description: string;
  args: A;
  mutates: boolean;
  /** Members unless said otherwise (tools that only read: members of closed campaigns too). */
  audience?: Audience;
  /** What a success answers (framework/output.ts). */
  output?: z.ZodType<O>;
  handler(ctx: OperationContext<S>, input: Input<A>): Promise<NoInfer<O>>;
}

/**
 * A tool used inside a campaign. The definition states only what is particular to it: the
 * helper adds the optional `campaign_id` first (the caller's default campaign when absent;
 * every handler checks membership of the campaign it acts in), the Campaigns group and who is
 * offered it.
 */
export function campaignTool<A extends z.ZodRawShape, O, S extends CampaignServices = CampaignServices>(
  spec: CampaignToolSpec<A, O, S>,
): Operation<S, z.ZodObject<WithCampaign<A>, z.core.$strict>, O> {
  return defineTool<S, WithCampaign<A>, O>({
    ...spec,
    group: 'Campaigns',
    args: { ...optionalCampaign, ...spec.args },
    audience: spec.audience ?? (spec.mutates ? MEMBERS : RECORD_READERS),
  });
}

/**
 * A campaign tool whose handler acts as a member of the campaign named (or the default one):
 * membership is checked first, for a change when the tool mutates, and handed to the handler.
 */
export function memberTool<A extends z.ZodRawShape, O, S extends CampaignServices = CampaignServices>(
  spec: Omit<CampaignToolSpec<A, O, S>, 'handler'> & {
    /** Whether a closed campaign refuses it; by default, when it mutates. */
    forChange?: boolean;
    /** Whether it starts new work, which a stopping campaign refuses too. */
    forNew?: boolean;
    handler(ctx: OperationContext<S>, input: Input<A>, member: Membership): Promise<NoInfer<O>>;
  },
) {
  const { forChange = spec.mutates, forNew = false, ...rest } = spec;
  return campaignTool<A, O, S>({
    ...rest,
    handler: async (ctx, input) => {
      const { campaignId } = input as { campaignId?: string };
      const member = await requireMembership(ctx.ex, ctx.caller, campaignId, { forChange, forNew });
      return spec.handler(ctx, input, member);
    },
  });
}
