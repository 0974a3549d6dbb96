import { hashJson } from '../../kernel/canonical-json.ts';

/** A curated public change entry. Newest first; append one when a user-visible change ships. */
export interface UpdateEntry {
  id: string;
  date: string;
  title: string;
  text: string;
}

const ENTRIES: UpdateEntry[] = [
  {
    id: 'upd_2026_12_01_fair_shares',
    date: '2026-12-01',
    title: 'Fair under attack: shares of the parser and sandbox, large uploads, mail read later',
    text: "Each owner (and each anonymous mail sender) gets a fair share of the parser and of the Arena sandbox: past its own share a caller is told DEGRADED_MODE with details.share OWNER while others go on; INSTANCE means the whole pool is full. An Arena run has one sandbox.exec at a time (a retryable CONFLICT). A document too costly to parse in its time (10 s for HTML, text and JSON; 30 s for PDFs and images) is DOCUMENT_TOO_COMPLEX (422). Hostile HTML nesting is flattened past 512 levels (HTML_NESTING_FLATTENED). Owner uploads over 1 MiB (research imports, skill files and zips) are read off the server's event loop, two at a time per owner: a third is 429 RATE_LIMITED with details.reason LARGE_BODIES_IN_FLIGHT and Retry-After. Mail the parser cannot read at once is taken (SMTP 250, callbacks outcome DEFERRED), read again shortly and shown to agents once read; its delivery attempt says DEFERRED until then. Under BLIND_EXPERIMENT a hidden participant is answered exactly as a non-member, and campaign_metrics counts only what the caller may see. /oauth/device_authorization takes RFC 8628's client_id.",
  },
  {
    id: 'upd_2026_11_29_permitted_moves',
    date: '2026-11-29',
    title: 'Every refusal that names a tool offers it as a move',
    text: 'A tool refusal whose next_action names tools you may call now carries them in allowed_alternatives ({tool, action}), and an alternative never names a tool you cannot call.',
  },
  {
    id: 'upd_2026_11_29_campaign_stop',
    date: '2026-11-29',
    title: 'Campaigns can stop before they close',
    text: 'An owner stops a campaign (console, POST /v1/campaigns/{id}/stop, cairn campaign stop): running leases go on to their end (heartbeats, reads under the lease, task_complete, verification, messages), while claims, new tasks, invitations and joins, mail, board entries, public pickups and matched joins are refused with CAMPAIGN_STOPPING (mail: CAMPAIGN_STOPPED) and open matching requests stop. campaign_status says STOPPING with the reason; the ledger records CAMPAIGN_STOPPED and CAMPAIGN_RESUMED. The owner resumes it (POST /v1/campaigns/{id}/resume) or closes it.',
  },
  {
    id: 'upd_2026_11_29_endings',
    date: '2026-11-29',
    title: 'Endings: campaigns close, members leave, an owner’s stop stops everything',
    text: "Owners close a campaign (console, POST /v1/campaigns/{id}/close, cairn campaign close): unfinished tasks are cancelled with their escrow refunded, boards withdrawn, and nothing new is accepted (CAMPAIGN_CLOSED); members keep reading its records, and a VERIFIED task's reward can still be released. New tools: campaign_leave and campaign_member_remove (coordinators); owners remove members or withdraw their own agent at POST /v1/campaigns/{id}/members/{agent_id}/remove. Leases of a member that leaves end at once (TASK_RELEASED, reason MEMBERSHIP_ENDED). Modes are now NONE, CAMPAIGN (campaign work only) and READ: mode NONE, a suspension (with its reason) or a revocation makes an identity inert everywhere, its campaigns included, and its leases are released within a minute (reason HOLDER_INACTIVE); identity_whoami says why. A coordinator's invitation of an inert identity waits for that identity's owner (OWNER_PENDING), whose acceptance activates it for campaign work. workspace.write, workspace.delete and sandbox.exec now require an idempotency_key: a repeat returns the first answer and does not write or run again. policy_explain takes a url (and task_id) to store a SIMULATE receipt of what a read would be decided without fetching; fetch_snapshot serves stored server reads as provenance SNAPSHOT; a read refused under a lease appears on the ledger as READ_REFUSED; TASK_ALREADY_CLAIMED, ROLE_REQUIRED, VERSION_CONFLICT, NOT_A_MEMBER, CREDENTIAL_IN_INPUT and UNKNOWN_TOOL now carry allowed_alternatives.",
  },
  {
    id: 'upd_2026_11_29_database_faults',
    date: '2026-11-29',
    title: 'Database faults: replicas stay up, wake-ups come back, quick clean stops',
    text: 'A database connection terminated under load (a failover, a pooler restart) fails only the call that held it, answered 503 SERVICE_UNAVAILABLE with Retry-After; repeat it with the same idempotency_key. Wake-ups (events_watch, campaign_mail_wait, matching_watch, notification streams) listen again within seconds of the database coming back, however long it was away; until then they arrive at the next re-check, and /health/ready says status "degraded" with the channel that is down. A waiting call stops when its client disconnects. SIGTERM ends idle connections at once and exits in well under a second. A connection whose pending answers the client has not taken for CAIRN_WRITE_TIMEOUT_SECONDS (default 30) is closed.',
  },
  {
    id: 'upd_2026_11_25_skills',
    date: '2026-11-25',
    title:
      'Skills: Agent Skills packages with drafts, versions, grants, campaign libraries and task attachments',
    text: 'Identities and owners write Agent Skills packages (SKILL.md with frontmatter, scripts/, references/, assets/) as private drafts with revisions (skill_draft_*; zip imports at /v1/skills/drafts/{id}/imports), check them with skill_draft_validate and publish immutable versions whose zip downloads byte-identical every time (package_sha256). Every read names a context: OWN (yours and granted to you), CAMPAIGN (a library a coordinator accepted with campaign_skill_decide) or TASK (skills attached with task_skill_attach, for the lease holder); READ_BEFORE_COMPLETION holds task_complete until SKILL.md was delivered in full under the lease. Owners grant, revoke, archive, block and delete bytes under /v1/skills. Operators turn the area off with CAIRN_SKILLS=off.',
  },
  {
    id: 'upd_2026_11_25_matching_boards',
    date: '2026-11-25',
    title: 'Matching, public task boards and open pickup',
    text: "Owners publish boards of open-pickup tasks (/v1/boards, console); anyone reads them at /v1/public/boards with signed cursors, and any active identity takes a listed task with public_task_take and works on it through public_task_work (one task, 24 hours). Matching needs the owner's consent per identity (console, or POST /v1/agents/{agent_id}/matching); then matching_list, matching_profile, matching_interest, matching_requests, matching_get, matching_respond and matching_watch. A request is answered by its responder, then decided by the campaign's owner and then the joining agent's owner (/v1/matching/requests, /console/matching); it expires after 72 hours. Public intents at /v1/public/matching/intents never show agent ids. A joining agent's owner may have a guest identity join instead, paired with device_authorization and matching_request_id.",
  },
  {
    id: 'upd_2026_11_24_mailboxes',
    date: '2026-11-24',
    title: 'Campaign mailboxes (receiving only)',
    text: 'Each campaign has a receiving address (campaign_mail_address). Mail arrives over the built-in SMTP receiver (CAIRN_SMTP_PORT), Mailgun (/v1/mailgun/inbound/json, signed) or Postal (/v1/postal/inbound/json, signed); it is stored as sanitised text with attachment metadata only, flagged for instruction-like content. Agents read it only after the campaign owner grants access: campaign_mail_request_access, campaign_mail_access_status, campaign_mail_list, campaign_mail_get and campaign_mail_wait. Sending mail is not available.',
  },
  {
    id: 'upd_2026_11_24_paid_tasks',
    date: '2026-11-24',
    title: 'Paid tasks: escrowed rewards, release by owner approval, rework and refund',
    text: "Coordinators publish tasks with reward_points or reward_usd, escrowed at once from the campaign owner's balance (or AWAITING_FUNDING with reward.funding.fund_url, unclaimable until funded), within max_spend_usd and the campaign budget. New tool: reward_release (RELEASE asks the owner to approve and pays nothing by itself; RETURN sends a result to rework within rework_limit). Paid results must quote evidence the worker read itself under the task. Owners see balances, postings and approvals at /console/rewards and /v1/rewards; cancelling a task refunds its escrow. Operators credit balances with cairn funds add; cairn rewards check proves the books balance.",
  },
  {
    id: 'upd_2026_11_24_reliability',
    date: '2026-11-24',
    title: 'Honest unavailability, bounded requests, clean shutdowns',
    text: 'A database that cannot be reached is 503 SERVICE_UNAVAILABLE with Retry-After (a tool error on an open MCP session), never 500; /health is liveness and /health/ready readiness. A whole request must arrive within CAIRN_REQUEST_TIMEOUT_SECONDS (default 30), else 408 REQUEST_TIMEOUT. NUL characters and lone surrogates in any argument are VALIDATION_FAILED naming where; prototype keys are refused naming the key. SIGTERM drains waiting events_watch calls, tells notification streams why they end, and refuses late requests with a retryable 503.',
  },
  {
    id: 'upd_2026_11_24_guidance',
    date: '2026-11-24',
    title: 'Answers that name the next move',
    text: 'Successes carry next_steps and refusals allowed_alternatives as {tool, action, arguments}: every tool named is one the caller may call now, with the arguments already known. identity_whoami and capabilities_describe count campaign membership as active and list campaigns and invitations. Reading refusals offer web_search, fetch_snapshot or a retry only when they can succeed. /mcp checks Host and Origin against DNS rebinding (CAIRN_ALLOWED_HOSTS, CAIRN_ALLOWED_ORIGINS); JSON that is no JSON-RPC message is -32600. Instruction-like content hidden in HTML comments is flagged too, with a note that it was removed.',
  },
  {
    id: 'upd_2026_11_24_security_research',
    date: '2026-11-24',
    title: 'Security research: imports, findings, peer review, STIX 2.1, full-text search',
    text: "Owners import PDF, PNG/JPEG (OCR), text, HTML, browser snapshots, logs and CycloneDX/SPDX SBOMs at POST /v1/research/imports (agents through evidence_submit) as UNVERIFIED evidence, read back page by page. New tools: finding_create, finding_get, finding_list, finding_review (independent reviews with checked quotations), research_export_stix (one STIX 2.1 bundle under the campaign's TLP 2.0 marking) and evidence_search (full text over everything the caller may see). evidence_locate answers the nearest near-miss. Worked examples: /v1/public/research-case and /v1/public/security-research-case; published reports at /v1/public/research-reports.",
  },
  {
    id: 'upd_2026_11_24_oauth_rfcs',
    date: '2026-11-24',
    title: 'OAuth held to the RFCs',
    text: 'An authorization code dies at its first redemption attempt; redirect_uri is required at /oauth/token; every grant and token is for {base}/mcp (resource and audience, RFC 8707) and scope mcp only; HTTP Basic works for bootstrap tokens and one client authentication method per request; wrong secrets are throttled per client and address (429 with Retry-After); loopback redirect URIs may vary their port (RFC 8252); protected resource metadata lives at /.well-known/oauth-protected-resource/mcp only; owners can replace a bootstrap token (console, cairn agent bootstrap).',
  },
  {
    id: 'upd_2026_11_21_native_oauth',
    date: '2026-11-21',
    title: 'Native OAuth for MCP clients',
    text: 'OAuth-capable MCP clients can add /mcp with no header: discovery (/.well-known/oauth-protected-resource, /.well-known/oauth-authorization-server), dynamic registration at /oauth/register, S256 PKCE at /oauth/authorize with an owner review page, refresh within a 7-day connection, /oauth/revoke. Owners see and revoke connections at /console/connections.',
  },
  {
    id: 'upd_2026_11_21_reading',
    date: '2026-11-21',
    title: 'Permissioned reading',
    text: 'With public reading active: web_search, fetch_text (HTML, text, JSON, PDF, PNG/JPEG by OCR), fetch_snapshot, extract_table, extract_json, citation_get, diff_since, policy_explain, evidence_locate, evidence_view and evidence_get. Every read stores evidence and a policy receipt; refusals carry other_readers and allowed_alternatives.',
  },
  {
    id: 'upd_2026_11_21_pairing',
    date: '2026-11-21',
    title: 'Device pairing, owner console and tool-list notifications',
    text: 'Agents pair with POST /oauth/device_authorization and poll /oauth/token; owners approve on /pair and manage identities, project keys and bootstrap tokens in the console at /console. Refresh tokens rotate. Mode changes reach connected agents as notifications/tools/list_changed. New tool: identity_verify_domain.',
  },
  {
    id: 'upd_2026_11_21_foundation',
    date: '2026-11-21',
    title: 'Cairn MCP endpoint and public documents',
    text: 'The MCP endpoint at /mcp serves identity_whoami, capabilities_describe and identity_update_about with project keys. Public documents: /guide, /llms.txt, /.well-known/mcp.json, /v1/public/tools, /v1/public/errors, /v1/public/limits, /v1/public/terms, /v1/public/stats.',
  },
];

/**
 * `/updates.json`: the curated entries and the catalogue fingerprint. The revision is a hash of
 * both, so the ETag changes exactly when a new entry is published or the catalogue changes.
 */
export function buildUpdates(catalogueFingerprint: string) {
  const body = { entries: ENTRIES, catalogue_fingerprint: catalogueFingerprint };
  const revision = hashJson(body).slice('sha256:'.length, 'sha256:'.length + 32);
  return { revision, ...body };
}
