/**
 * The error code catalog: one source of truth for every refusal Cairn can give.
 * The HTTP status, the retry hint, the `other_readers` advice and the public reference
 * text at `/v1/public/errors` all come from here. Areas add their codes as they land.
 */

/** What the caller may do about a refusal with another reader (SPEC Errors 2). */
export type OtherReaders = 'DO_NOT_BYPASS' | 'WAIT_FOR_OWNER' | 'ALLOWED';

export interface ErrorCodeEntry {
  httpStatus: number;
  retryable: boolean;
  otherReaders: OtherReaders;
  /** Public reference text: when it happens. */
  when: string;
  /** Public reference text: what the caller should do next. */
  next: string;
}

export const ERROR_CATALOG = {
  UNAUTHENTICATED: {
    httpStatus: 401,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The bearer credential is missing, malformed, expired or revoked, or its identity was revoked.',
    next: 'Exchange or refresh the token and retry once; if it still fails, ask the owner for a new credential.',
  },
  TOOL_NOT_AVAILABLE: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The tool exists but is not available to this identity in its current mode.',
    next: 'Call capabilities_describe to see why, and ask the owner to activate the needed mode.',
  },
  UNKNOWN_TOOL: {
    httpStatus: 404,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'No tool of that name exists on this server.',
    next: 'Call tools/list or capabilities_describe for the tools that exist.',
  },
  VALIDATION_FAILED: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The arguments do not match the tool or operation schema.',
    next: 'Correct the arguments listed in details.detail and call again.',
  },
  CREDENTIAL_IN_INPUT: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'A token, key or other secret appears in tool arguments or message content. It was not stored or logged.',
    next: 'Remove the secret. Credentials travel only in the Authorization header; never paste them into arguments.',
  },
  IDEMPOTENCY_KEY_REUSED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The idempotency_key was already used for this tool with different arguments.',
    next: 'Use a fresh idempotency_key for a new action, or repeat the original arguments to get the first result.',
  },
  NOT_FOUND: {
    httpStatus: 404,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'No such resource or path, or it is not visible to the caller.',
    next: 'Check the path or identifier; list the collection to find valid ones.',
  },
  METHOD_NOT_ALLOWED: {
    httpStatus: 405,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The HTTP method is not offered on this path.',
    next: 'Use a method named in the Allow header.',
  },
  SESSION_NOT_FOUND: {
    httpStatus: 404,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The Mcp-Session-Id is unknown, ended, or belongs to another identity.',
    next: 'Send a new initialize request without Mcp-Session-Id to start a new session.',
  },
  PAYLOAD_TOO_LARGE: {
    httpStatus: 413,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The request body is larger than the server accepts.',
    next: 'Send a smaller body; see /v1/public/limits.',
  },
  NOT_ACCEPTABLE: {
    httpStatus: 406,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The Accept header does not allow what the endpoint answers with (MCP needs application/json and text/event-stream).',
    next: 'Send Accept: application/json, text/event-stream on POST /mcp.',
  },
  UNSUPPORTED_MEDIA_TYPE: {
    httpStatus: 415,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The request body is not application/json.',
    next: 'Send the body as JSON with Content-Type: application/json.',
  },
  BAD_REQUEST: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The request could not be read (for example malformed JSON or a bad protocol header).',
    next: 'Fix the request as the message says and send it again.',
  },
  RATE_LIMITED: {
    httpStatus: 429,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'Too many requests from this client in the current window.',
    next: 'Wait details.retry_after_seconds (also the Retry-After header) and retry.',
  },
  CONFLICT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The request conflicts with what exists (for example an owner with that email is already registered).',
    next: 'Read the current state and decide again; details say what conflicts.',
  },
  SIGNUP_CLOSED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'Console sign-up is closed: an owner already exists and the operator has not set CAIRN_OPEN_SIGNUP=true.',
    next: 'Ask the operator or an existing owner; sign in if you already have an account.',
  },
  SIGNIN_FAILED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The console sign-in email or password is wrong. The refusal is the same for both, so it does not tell whether an account exists.',
    next: 'Check the email and password and try again; repeated failures lock sign-in for a while.',
  },
  SIGNIN_THROTTLED: {
    httpStatus: 429,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'Too many failed console sign-ins for this account or from this address in the last 15 minutes.',
    next: 'Wait details.retry_after_seconds (also the Retry-After header) and sign in again.',
  },
  NESTED_UNWRAP: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'The URL embeds another URL (in a query value or path segment, encoded or not). Cairn is not a proxy or redirector; nothing was requested.',
    next: 'Read the embedded URL directly if it is the page you want; do not wrap URLs in other URLs.',
  },
  REDIRECT_OUT_OF_SCOPE: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'A redirect led to a target that violates network safety (a private address, a sign-in surface, a robots.txt-disallowed path or an unsafe URL). details.redirect_target names it.',
    next: 'Do not follow the redirect by other means; read a different public source.',
  },
  ADDRESS_NOT_PUBLIC: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'The host is an internal name or resolves to an address that is not public unicast (loopback, private, link-local, metadata, reserved, or an IPv6 form carrying one).',
    next: 'Only public internet addresses are read. Choose a public source.',
  },
  URL_NOT_ALLOWED: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'The URL is not an absolute http or https URL on an allowed port (80 and 443 unless the operator allows more).',
    next: 'Give one absolute http(s) URL on a standard port.',
  },
  SIGN_IN_SURFACE: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The URL or the page served is a sign-in surface. Cairn reads only anonymous public content and never signs in.',
    next: 'Read a public page instead, or ask a person who may sign in to read it.',
  },
  APP_SHELL: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The page is a script-rendered application shell with no readable text; Cairn does not run scripts.',
    next: 'Look for a static version of the content (an article page, a PDF, an API that serves JSON) or use another reader.',
  },
  ROBOTS_DISALLOWED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The site's robots.txt asks Cairn's user agent not to fetch this path (or robots.txt could not be read because the server failed).",
    next: 'Respect the site: read another source. A person may still open the page.',
  },
  UNSUPPORTED_CONTENT: {
    httpStatus: 415,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The response is of a type Cairn does not read (it reads HTML, plain text, JSON, PDF, PNG and JPEG), or it could not be parsed.',
    next: 'Find the content in a supported format, or use another reader.',
  },
  CONTENT_TOO_LARGE: {
    httpStatus: 413,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The response or document exceeds a published limit (response bytes, PDF pages, image pixels); see /v1/public/limits.',
    next: 'Read a smaller document, such as a single chapter or page.',
  },
  TOO_MANY_REDIRECTS: {
    httpStatus: 502,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The site redirected more than five times.',
    next: 'Read the final page directly if you know it.',
  },
  UPSTREAM_UNAVAILABLE: {
    httpStatus: 502,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'The site could not be reached in time: the name did not resolve, the connection failed or the response timed out.',
    next: 'Retry later; check the URL for typos.',
  },
  UPSTREAM_HTTP_ERROR: {
    httpStatus: 502,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The site answered with an HTTP error status (details.http_status). retryable is true for 429 and 5xx.',
    next: 'Check the URL; for 429 and 5xx retry later.',
  },
  DEGRADED_MODE: {
    httpStatus: 503,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'The parser and OCR capacity of this server is busy.',
    next: 'Retry after details.retry_after_seconds (five seconds).',
  },
  SEARCH_NOT_CONFIGURED: {
    httpStatus: 503,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'No web search provider is configured on this deployment.',
    next: 'Ask the operator to configure SearXNG or Brave Search; meanwhile read URLs you already know with fetch_text.',
  },
  SEARCH_FAILED: {
    httpStatus: 502,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'The configured search provider did not answer or answered with an error.',
    next: 'Retry later.',
  },
  CAMPAIGN_REQUIRED: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'A campaign tool was called without campaign_id and the identity has no default campaign.',
    next: 'Pass campaign_id (campaign_list shows your campaigns), or join one with campaign_join.',
  },
  NOT_A_MEMBER: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The identity is not an active member of that campaign (or the campaign does not exist).',
    next: 'Join it with campaign_join if it is open or you were invited; otherwise ask a coordinator to invite you.',
  },
  ROLE_REQUIRED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'WAIT_FOR_OWNER',
    when: "The action needs a role the caller does not hold in this campaign (coordinator, the task's creator, or the owner).",
    next: 'Ask a coordinator to do it, or to give you the role named in details.required_role.',
  },
  CAMPAIGN_CLOSED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The campaign is closed; nothing more can be added to it.',
    next: 'Read its ledger and results; start new work in another campaign.',
  },
  OWNER_APPROVAL_PENDING: {
    httpStatus: 409,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: "The invitation comes from another owner's campaign and your owner has not accepted it yet, or an application waits for a coordinator.",
    next: 'Tell your owner (they accept invitations in the console) or wait for a coordinator; then call campaign_join again.',
  },
  TASK_ALREADY_CLAIMED: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'task_claim on a task another agent holds (or won in the same instant).',
    next: 'Pick another open task (task_list), or watch the ledger (events_watch) for this one to reopen.',
  },
  TASK_NOT_CLAIMABLE: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The task is not open for claiming: it was submitted, verified, cancelled or blocked, or it is reserved for another agent.',
    next: 'See details.status and details.assignee_id; pick another open task with task_list.',
  },
  INCOMPLETE: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'Task conditions are missing required terms (listed in details.missing).',
    next: 'Add every term in details.missing to conditions and publish (or edit) again.',
  },
  LEASE_REQUIRED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'DO_NOT_BYPASS',
    when: 'Inside a campaign every read needs a task lease, and the caller holds none (or none for the task named).',
    next: 'Claim a task with task_claim, then read with its task_id.',
  },
  LEASE_AMBIGUOUS: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The caller holds several task leases and the read named no task_id, so the read cannot be attributed.',
    next: 'Call again with task_id set to one of details.task_ids.',
  },
  LEASE_NOT_CURRENT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The lease has ended (expired at its execution_deadline, released, or ended by submission) or is not the caller's.",
    next: 'The task may be open again: claim it afresh with task_claim. Notes and evidence from the old lease stay readable.',
  },
  VERSION_CONFLICT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "expected_version does not match the task's current version: someone changed it first.",
    next: 'Read the task again (details.current_version), decide whether your change still applies, and retry with that version.',
  },
  TASK_NOT_EDITABLE: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The task cannot be edited now: it is claimed, has a submitted result or a funded reward, or is closed.',
    next: 'Publish a new task instead, or wait until the claim ends.',
  },
  EVIDENCE_REQUIRED: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'task_complete needs at least one recorded source among evidence_ids that the caller may see.',
    next: 'Read the sources with fetch_text under this lease (or evidence_submit them) and pass their evidence_ids.',
  },
  RECIPIENT_NOT_MEMBER: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'addressed_to (or to) names an agent that is not an active member of the campaign. Nothing was sent.',
    next: 'Check the agent id, or omit addressed_to to write to the whole campaign; a coordinator can invite the agent.',
  },
  RECIPIENT_CANNOT_SEE: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: "The addressee could not read the direct message under the campaign's visibility mode (BLIND_EXPERIMENT keeps participants apart; TASK_SCOPED hides tasks they are not involved in). Nothing was sent.",
    next: 'Write to a coordinator instead, or drop task_id (or link a task the addressee works on).',
  },
  PROPOSAL_NOT_OPEN: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The proposal was already decided (details.status is the outcome); it takes no more responses or decisions.',
    next: 'Read the decision (details.decision_id) with context_read; make a new proposal to reopen the question.',
  },
  CURSOR_INVALID: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The cursor was altered, or was issued to another caller, campaign or query.',
    next: 'Call again without the cursor to start from the beginning.',
  },
  INTERNAL: {
    httpStatus: 500,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'An unexpected server error. Details are in the server log under the request id.',
    next: 'Retry later; report details.request_id to the operator if it persists.',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** The wire shape of every refusal, over MCP (`isError: true`) and HTTP alike. */
export interface ErrorEnvelope {
  status: 'ERROR';
  error: {
    code: ErrorCode;
    retryable: boolean;
    message: string;
    other_readers: OtherReaders;
    details: Record<string, unknown>;
    /** What the caller may do instead (refusals of reads and other policy decisions). */
    allowed_alternatives?: Alternative[];
  };
}

/** One thing a refused caller may do instead: a tool to call, or an action for a person. */
export interface Alternative {
  /** The tool to call, when the alternative is a tool. */
  tool?: string;
  /** What to do, in words. */
  action: string;
}

/** Thrown by domain code; transports map it once through the catalog. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly alternatives: Alternative[] | undefined;
  /** Overrides the catalog's retry hint where it depends on the case (e.g. an upstream 503). */
  readonly retryable: boolean | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    extras: { alternatives?: Alternative[]; retryable?: boolean } = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    this.alternatives = extras.alternatives;
    this.retryable = extras.retryable;
  }
}

/** Builds the envelope for a code from the catalog. */
export function errorEnvelope(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  alternatives?: Alternative[],
  retryable?: boolean,
): ErrorEnvelope {
  const entry: ErrorCodeEntry = ERROR_CATALOG[code];
  return {
    status: 'ERROR',
    error: {
      code,
      retryable: retryable ?? entry.retryable,
      message,
      other_readers: entry.otherReaders,
      details,
      ...(alternatives ? { allowed_alternatives: alternatives } : {}),
    },
  };
}

/** Envelope for anything thrown: DomainErrors keep their code; everything else is INTERNAL. */
export function toErrorEnvelope(err: unknown, requestId: string): ErrorEnvelope {
  if (err instanceof DomainError) {
    return errorEnvelope(err.code, err.message, err.details, err.alternatives, err.retryable);
  }
  return errorEnvelope('INTERNAL', 'Internal error; the operator can find it by request_id.', {
    request_id: requestId,
  });
}

/** Whether a stored string is one of the catalog's codes. */
export function isErrorCode(value: string): value is ErrorCode {
  return Object.hasOwn(ERROR_CATALOG, value);
}

export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CATALOG[code].httpStatus;
}

/** The public reference served at `/v1/public/errors`. */
export function describeErrorCatalog() {
  return Object.entries(ERROR_CATALOG).map(([code, e]) => ({
    code,
    http_status: e.httpStatus,
    retryable: e.retryable,
    other_readers: e.otherReaders,
    when: e.when,
    next: e.next,
  }));
}
