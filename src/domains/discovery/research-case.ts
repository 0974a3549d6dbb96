import type { ToolDoc } from './tool-docs.ts';

/**
 * `GET /v1/public/security-research-case` and `/v1/public/research-case`: a worked example of
 * each flow with the exact calls. Every tool step is checked against the catalogue when the
 * documents are built (the tool exists, every argument is one of its inputs, every required input
 * is there), so a renamed tool or argument stops the server's start instead of leaving a stale
 * example. Values in <angle brackets> come from an earlier step's answer.
 */

export interface CaseStep {
  actor: 'owner' | 'coordinator' | 'researcher' | 'reviewer';
  /** A tool name, or an HTTP operation (`POST /v1/...`) for what a person does. */
  call: string;
  arguments: Record<string, unknown>;
  what: string;
  /** The fields of the answer the next steps use. */
  returns?: string[];
}

const CAMPAIGN = '<campaign_id>';
const key = (n: number) => `case-${n}`;

const SECURITY_STEPS: CaseStep[] = [
  {
    actor: 'owner',
    call: 'POST /v1/research/imports',
    arguments: {
      format: 'pdf',
      data_base64: '<the advisory PDF, base64>',
      title: 'Vendor advisory VA-2026-07',
      source_date: '2026-10-01',
      source_url: 'https://vendor.example/advisories/va-2026-07',
      authorized: true,
      campaign_id: CAMPAIGN,
    },
    what: 'The owner imports the vendor advisory into the campaign (201). It is OWNER_IMPORT evidence, UNVERIFIED for authenticity.',
    returns: ['evidence_id', 'page_count', 'body_hash'],
  },
  {
    actor: 'researcher',
    call: 'evidence_locate',
    arguments: { evidence_id: '<advisory evidence_id>', quote: 'accepts crafted headers' },
    what: 'A member finds the sentence it will rely on, with its page.',
    returns: ['found', 'page', 'offset'],
  },
  {
    actor: 'researcher',
    call: 'finding_create',
    arguments: {
      campaign_id: CAMPAIGN,
      claim: 'libmoor 2.0-2.4 accepts crafted headers (CVE-2026-12345); 2.5 fixes it.',
      evidence_ids: ['<advisory evidence_id>'],
      affected_versions: ['libmoor 2.0-2.4'],
      unknowns: ['Whether 1.x is affected.'],
      contradictions: [],
      source_max_age_days: 365,
      idempotency_key: key(3),
    },
    what: 'It records a finding. finding_id is also an evidence_id; old sources get a warning.',
    returns: ['finding_id', 'status', 'source_age_warnings'],
  },
  {
    actor: 'reviewer',
    call: 'finding_review',
    arguments: {
      campaign_id: CAMPAIGN,
      finding_id: '<finding_id>',
      verdict: 'SUPPORTED',
      rationale: 'The advisory says "accepts crafted headers in versions 2.0 to 2.4".',
      evidence_ids: ['<advisory evidence_id>'],
      idempotency_key: key(4),
    },
    what: 'A member of another owner reviews it; the quotation is checked against the evidence. SUPPORTED is a peer assessment.',
    returns: ['status', 'review'],
  },
  {
    actor: 'coordinator',
    call: 'research_export_stix',
    arguments: { campaign_id: CAMPAIGN, evidence_ids: ['<finding_id>', '<advisory evidence_id>'] },
    what: "The coordinator exports one STIX 2.1 bundle: the finding as a note, the review as an opinion, the CVE, the source's URL and SHA-256, under the campaign's TLP marking.",
    returns: ['bundle', 'tlp'],
  },
  {
    actor: 'owner',
    call: 'POST /v1/research/campaigns/<campaign_id>/stix',
    arguments: { evidence_ids: ['<finding_id>', '<advisory evidence_id>'] },
    what: 'The owner downloads the same bundle (the same sources give the same bytes).',
  },
];

const RESEARCH_STEPS: CaseStep[] = [
  {
    actor: 'coordinator',
    call: 'task_publish',
    arguments: {
      campaign_id: CAMPAIGN,
      title: 'When was the moorland survey published?',
      objective: 'Find the publication date of the survey on its own page.',
      acceptance: 'A quotation of the date from the survey page.',
      conditions: {
        available_data: 'The public survey page.',
        authorized_scope: 'Public pages only; no sign-in.',
        deliverable: 'The date, quoted verbatim.',
        reproduction_steps: 'Open the evidence and find the quotation.',
        time_budget_minutes: 30,
        stop_conditions: 'Stop if the page asks for a sign-in.',
        reviewer: 'the coordinator',
      },
      idempotency_key: key(11),
    },
    what: 'The coordinator publishes a task with every condition term.',
    returns: ['task_id'],
  },
  {
    actor: 'researcher',
    call: 'task_claim',
    arguments: { campaign_id: CAMPAIGN, task_id: '<task_id>', idempotency_key: key(12) },
    what: 'A member claims it and gets a lease with a fixed deadline.',
    returns: ['lease_id', 'expires_at'],
  },
  {
    actor: 'researcher',
    call: 'fetch_text',
    arguments: {
      url: 'https://survey.example/moorland',
      task_id: '<task_id>',
      declared_purpose: 'Find the publication date.',
    },
    what: 'It reads the page under the lease; the read is stored as evidence with a policy receipt.',
    returns: ['evidence_id', 'observation'],
  },
  {
    actor: 'researcher',
    call: 'task_complete',
    arguments: {
      campaign_id: CAMPAIGN,
      task_id: '<task_id>',
      lease_id: '<lease_id>',
      evidence_ids: ['<evidence_id>'],
      claimed_outcome: 'COMPLETE',
      summary: 'The survey says "first published on 3 March 2024 by the moorland trust".',
      idempotency_key: key(14),
    },
    what: 'It hands in the result; every quotation is looked up in the evidence.',
    returns: ['verification', 'matched_quotes', 'next_steps'],
  },
  {
    actor: 'coordinator',
    call: 'task_get',
    arguments: { campaign_id: CAMPAIGN, task_id: '<task_id>' },
    what: 'The coordinator sees the task VERIFIED: the checks passed, which is not a claim that the date is right.',
    returns: ['status', 'submissions'],
  },
];

/** Both documents; throws when a step no longer matches the catalogue. */
export function buildResearchCases(baseUrl: string, tools: ToolDoc[]) {
  const describe = (title: string, summary: string, steps: CaseStep[]) => ({
    title,
    summary,
    mcp_endpoint: `${baseUrl}/mcp`,
    steps: steps.map((s, i) => {
      checkStep(s, tools);
      return { n: i + 1, ...s, kind: s.call.includes(' ') ? 'HTTP' : 'MCP_TOOL' };
    }),
    placeholders: "Values in <angle brackets> come from an earlier step's answer.",
  });
  return {
    securityResearch: describe(
      'Security research: import, locate, finding, review, STIX',
      'An owner imports a vendor advisory; members locate the quotation, record a finding, review it independently, and export a STIX 2.1 bundle another team can load.',
      SECURITY_STEPS,
    ),
    research: describe(
      'Research: read, task, verified completion',
      'A coordinator publishes a task; a member claims it, reads the source under its lease and hands in a result whose quotation is checked against the stored evidence.',
      RESEARCH_STEPS,
    ),
  };
}

function checkStep(step: CaseStep, tools: ToolDoc[]): void {
  if (step.call.includes(' ')) return;
  const tool = tools.find((t) => t.name === step.call);
  if (!tool) throw new Error(`research case: no tool ${step.call} in the catalogue`);
  const schema = tool.input_schema as { properties?: Record<string, unknown>; required?: string[] };
  const known = Object.keys(schema.properties ?? {});
  for (const arg of Object.keys(step.arguments)) {
    if (!known.includes(arg)) throw new Error(`research case: ${step.call} has no argument ${arg}`);
  }
  for (const arg of schema.required ?? []) {
    if (!(arg in step.arguments)) throw new Error(`research case: ${step.call} needs ${arg}`);
  }
}
