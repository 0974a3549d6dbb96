import type { z } from 'zod';
import type { ConsoleOwner } from '../../../web/console/context.ts';
import type { SafeHtml } from '../../../web/console/html.ts';

/**
 * A section another area adds to a campaign's console page (matching's call for applications):
 * its panel, shown after the members, and the forms it posts to
 * `/console/campaigns/:campaign_id/<suffix>`. The page handles each form like its own: the
 * session and CSRF check, the form, then back to the page with the change's confirmation (or
 * where `act` says), or the refusal shown on the page with what was typed in that form.
 */
export interface CampaignPagePart {
  /** Its panel for this campaign, or nothing; `draft` is what was typed in its form after a refusal. */
  panel(v: {
    owner: ConsoleOwner;
    csrf: string;
    campaign: { campaign_id: string; status: string };
    path: string;
    draft: Record<string, string> | undefined;
  }): Promise<SafeHtml | ''>;
  /** The name its forms' drafts go by (one per part). */
  form: string;
  changes: ReadonlyArray<CampaignPageChange>;
  /** What the page says after each change, by the key its `act` answers. */
  done: Readonly<Record<string, string>>;
}

export interface CampaignPageChange {
  suffix: string;
  schema: z.ZodType;
  /** Does the change: the confirmation's key, or where the browser goes next. */
  act(owner: ConsoleOwner, campaignId: string, data: unknown): Promise<string | { location: string }>;
}

/** One change, its form's type carried through to `act`. */
export function campaignPageChange<T extends z.ZodType>(
  suffix: string,
  schema: T,
  act: (owner: ConsoleOwner, campaignId: string, data: z.infer<T>) => Promise<string | { location: string }>,
): CampaignPageChange {
  return { suffix, schema, act: (owner, id, data) => act(owner, id, data as z.infer<T>) };
}

declare module '../../../framework/door-context.ts' {
  interface PageParts {
    /** Sections of a campaign's page (campaigns/console/campaign-parts.ts). */
    campaignPage?: CampaignPagePart[];
  }
}
