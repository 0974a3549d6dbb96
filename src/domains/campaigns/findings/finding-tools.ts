import { z } from 'zod';
import { openCursor, signCursor } from '../../../kernel/cursor.ts';
import { cutPage } from '../../../kernel/paging.ts';
import { MAX_STIX_SOURCES } from '../../research/index.ts';
import { viewerOf } from '../audience.ts';
import { memberTool } from '../campaign-tool.ts';
import { agentIdArg, evidenceIdArg, longText, taskIdArg } from '../schemas.ts';
import { campaignEvidenceFor } from './cited.ts';
import { presentFinding, presentReview } from './finding-present.ts';
import { listVisibleFindings, seesSomeReviews, visibleFinding, visibleReviews } from './finding-repo.ts';
import { createFinding, findingNotFound, reviewFinding } from './findings.ts';
import { STATUS_MEANING, VERDICTS } from './status.ts';
import { exportStix } from './stix-export.ts';

/** Findings with peer review (SPEC Finding; the finding_* tools). */

const MAX_EVIDENCE = 20;
const items = (what: string, max: number, chars: number) =>
  z
    .array(longText(chars))
    .max(max)
    .optional()
    .describe(`${what} (up to ${max}, each up to ${chars.toLocaleString('en')} characters).`);
const findingIdArg = evidenceIdArg.describe('The finding (its id is an evidence id, evd_…).');
const evidenceList = (what: string) =>
  z.array(evidenceIdArg).min(1).max(MAX_EVIDENCE).describe(`${what} (1-${MAX_EVIDENCE} evidence ids).`);

const findingCreate = memberTool({
  name: 'finding_create',
  description:
    "Record a finding: a claim, the evidence it rests on, the affected versions, what is still unknown and what contradicts it. Returns finding_id, which is also an evidence_id: later findings and task summaries can cite it. Sources older than source_max_age_days get a warning. Other members review it with finding_review; who sees it follows the campaign's visibility mode.",
  args: {
    claim: longText(20_000).describe('What you found, in your own words (up to 20,000 characters).'),
    evidence_ids: evidenceList('The sources it rests on: your reads or evidence of this campaign'),
    affected_versions: items('Affected products and versions, e.g. "libmoor 2.0-2.4"', 50, 500),
    unknowns: items('What is still not known', 50, 2_000),
    contradictions: items('What speaks against it', 50, 2_000),
    source_max_age_days: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .optional()
      .describe('Warn about sources older than this many days (by their own date, else when read).'),
    task_id: taskIdArg.optional().describe('The task this finding answers, if any.'),
  },
  mutates: true,
  handler: async (ctx, input, m) => {
    const row = await createFinding(ctx.ex, ctx.services.reading, ctx.caller, m, input, ctx.clock.now());
    return {
      ...presentFinding(row, []),
      next_steps: [
        {
          tool: 'finding_review',
          action:
            'Another member (of another owner, unless the campaign allows it) reviews it with this finding_id.',
          arguments: { finding_id: row.id },
        },
        { tool: 'finding_get', action: 'Follow its reviews and status.', arguments: { finding_id: row.id } },
      ],
    };
  },
});

const findingGet = memberTool({
  name: 'finding_get',
  description:
    "A finding you may see, with the reviews you may see, its status and source-age warnings. SUPPORTED is a peer assessment, not Cairn's judgement.",
  args: { finding_id: findingIdArg },
  mutates: false,
  handler: async (ctx, input, m) => {
    const viewer = viewerOf(m);
    const row = await visibleFinding(ctx.ex, viewer, input.findingId);
    if (!row) throw findingNotFound(input.findingId);
    const reviews = await visibleReviews(ctx.ex, viewer, [row.id]);
    return presentFinding(row, reviews.get(row.id) ?? [], seesSomeReviews(viewer));
  },
});

const findingList = memberTool({
  name: 'finding_list',
  description:
    "The campaign's findings you may see, newest first, one page at a time: filter by status, task, author or words in the claim (q).",
  args: {
    status: z.enum(['UNREVIEWED', ...VERDICTS]).optional(),
    task_id: taskIdArg.optional(),
    author: agentIdArg.optional().describe('Only findings by this agent (agt_…).'),
    q: z.string().trim().min(1).max(200).optional().describe('Words that appear in the claim.'),
    limit: z.number().int().min(1).max(100).optional().describe('Findings per page (1-100, default 20).'),
    cursor: z.string().max(500).optional().describe('next_cursor of the previous page.'),
  },
  mutates: false,
  handler: async (ctx, input, m) => {
    const viewer = viewerOf(m);
    const secret = ctx.services.campaignDeps.secret;
    // Bound to the caller, the campaign and the filters: it cannot page another query.
    const binding = `finding_list:${m.agentId}:${m.campaign.id}:${input.status ?? '*'}:${input.taskId ?? '*'}:${input.author ?? '*'}:${input.q ?? ''}`;
    const beforeId = input.cursor
      ? openCursor<{ before: string }>(secret, binding, input.cursor).before
      : undefined;
    const limit = input.limit ?? 20;
    const rows = await listVisibleFindings(
      ctx.ex,
      viewer,
      { status: input.status, taskId: input.taskId, authorAgentId: input.author, q: input.q, beforeId },
      limit,
    );
    const page = cutPage(rows, limit, (last) => signCursor(secret, binding, { before: last.id }));
    const reviews = await visibleReviews(
      ctx.ex,
      viewer,
      page.rows.map((r) => r.id),
    );
    return {
      campaign_id: m.campaign.id,
      findings: page.rows.map((r) => presentFinding(r, reviews.get(r.id) ?? [], seesSomeReviews(viewer))),
      status_meaning: STATUS_MEANING,
      next_cursor: page.next,
    };
  },
});

const findingReview = memberTool({
  name: 'finding_review',
  description:
    "Review another member's finding: SUPPORTED, CONTESTED or INSUFFICIENT_EVIDENCE, with a rationale and the evidence you checked. Verbatim quotations (20+ characters in quotation marks) must be found in that evidence. You cannot review your own finding, nor (unless the campaign allows it) one by an identity of your owner. SUPPORTED is a peer assessment.",
  args: {
    finding_id: findingIdArg,
    verdict: z.enum(VERDICTS),
    rationale: longText(20_000).describe(
      'Why, quoting the evidence verbatim where you can (up to 20,000 characters).',
    ),
    evidence_ids: evidenceList('The evidence you checked, visible to you in this campaign'),
  },
  mutates: true,
  handler: async (ctx, input, m) => {
    const { finding, review } = await reviewFinding(
      ctx.ex,
      ctx.services.reading,
      ctx.caller,
      m,
      input,
      ctx.clock.now(),
    );
    // The status as the reviewer may know it: under BLIND_EXPERIMENT, from the reviews it sees.
    const viewer = viewerOf(m);
    const seen = seesSomeReviews(viewer)
      ? presentFinding(
          finding,
          (await visibleReviews(ctx.ex, viewer, [finding.id])).get(finding.id) ?? [],
          true,
        ).status
      : finding.status;
    return {
      review: presentReview(review),
      finding_id: finding.id,
      status: seen,
      status_meaning: STATUS_MEANING,
      next_steps: [
        {
          tool: 'finding_get',
          action: 'See the finding with every review you may see.',
          arguments: { finding_id: finding.id },
        },
      ],
    };
  },
});

export { findingCreate, findingGet, findingList, findingReview };

const researchExportStix = memberTool({
  name: 'research_export_stix',
  description:
    "Export up to 20 sources (evidence and findings of this campaign you may see) as one STIX 2.1 bundle: findings as notes (with their affected versions, unknowns and contradictions), reviews as opinions, CVEs as vulnerabilities, software from findings and SBOMs, source URLs and SHA-256 hashes, under the campaign's TLP 2.0 marking. Ids are deterministic: the same sources export to the same bundle.",
  args: {
    evidence_ids: z
      .array(evidenceIdArg)
      .min(1)
      .max(MAX_STIX_SOURCES)
      .describe(`The sources to export (1-${MAX_STIX_SOURCES} evidence or finding ids).`),
  },
  mutates: false,
  handler: async (ctx, input, m) => {
    const { bundle } = await exportStix(ctx.ex, viewerOf(m), input.evidenceIds, (id) =>
      campaignEvidenceFor(ctx.ex, ctx.services.reading, ctx.caller, m.campaign.id, id),
    );
    return {
      campaign_id: m.campaign.id,
      tlp: m.campaign.tlp,
      object_count: bundle.objects.length,
      bundle,
      next_steps: [
        {
          action:
            "Load the bundle into a STIX 2.1 tool; the campaign's owner can also download it from the console.",
        },
      ],
    };
  },
});

export { researchExportStix };
