/**
 * Refusals and the code catalog. The kernel declares the general codes (every area and transport
 * may give them); each area declares its own in its `errors.ts` with `declareErrors`. Per code:
 * the HTTP status, the retry hint, the `other_readers` advice and the public reference text at
 * `/v1/public/errors`, which the catalogue (`domains/catalog.ts`) lists area by area.
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

/** Codes that belong to no one area: authentication, arguments, limits, transport, INTERNAL. */
export const GENERAL_ERRORS = {
  UNAUTHENTICATED: {
    httpStatus: 401,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The bearer credential is missing, malformed, expired or revoked, or its identity was revoked.',
    next: 'Exchange or refresh the token and retry once; if it still fails, ask the owner for a new credential.',
  },
  INSUFFICIENT_SCOPE: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The OAuth access token was approved for narrower scopes than the tool needs (mcp:read calls a tool that changes something, mcp:arena a tool outside the Arena). /mcp answers it with HTTP 403 and WWW-Authenticate error="insufficient_scope".',
    next: 'Authorize again asking for the scope in WWW-Authenticate (what the token holds and what the tool needs); the owner can give it to the same identity.',
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
  HOST_NOT_ALLOWED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The Host header of an /mcp request (X-Forwarded-Host behind a trusted proxy) names a host this server does not answer to: DNS-rebinding protection.',
    next: 'Call the /mcp address in the server card; the operator sets CAIRN_BASE_URL or lists other names in CAIRN_ALLOWED_HOSTS.',
  },
  ORIGIN_NOT_ALLOWED: {
    httpStatus: 403,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'A browser page from an origin this server does not allow called /mcp: DNS-rebinding protection.',
    next: 'Call from an allowed origin, or from a client that is not a web page; the operator lists origins in CAIRN_ALLOWED_ORIGINS.',
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
    when: 'Too many requests from this client in the current window, or as many large uploads of this owner in flight as it may have (details.reason LARGE_BODIES_IN_FLIGHT).',
    next: 'Wait details.retry_after_seconds (also the Retry-After header) and retry; for an upload, once one of your uploads in flight is answered.',
  },
  CONFLICT: {
    httpStatus: 409,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The request conflicts with what exists (for example an owner with that email is already registered).',
    next: 'Read the current state and decide again; details say what conflicts.',
  },
  DEGRADED_MODE: {
    httpStatus: 503,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'A bounded worker pool of this server (parsing and OCR, or the Arena sandbox) is at capacity.',
    next: 'Retry after details.retry_after_seconds (five seconds).',
  },
  CURSOR_INVALID: {
    httpStatus: 400,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The cursor was altered, or was issued to another caller, campaign or query.',
    next: 'Call again without the cursor to start from the beginning.',
  },
  REQUEST_TIMEOUT: {
    httpStatus: 408,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: "The whole request (headers and body) did not arrive within the server's request timeout; the connection was closed.",
    next: 'Send the request again, body included, without pauses; a large body may need a faster link.',
  },
  SERVICE_UNAVAILABLE: {
    httpStatus: 503,
    retryable: true,
    otherReaders: 'WAIT_FOR_OWNER',
    when: 'The server cannot serve the request right now: its database cannot be reached (restarting, failing over, out of connections), or this server is shutting down. Nothing was changed.',
    next: 'Retry after details.retry_after_seconds (also the Retry-After header); the same call with the same idempotency_key is safe.',
  },
  INTERNAL: {
    httpStatus: 500,
    retryable: true,
    otherReaders: 'ALLOWED',
    when: 'An unexpected server error. Details are in the server log under the request id.',
    next: 'Retry later; report details.request_id to the operator if it persists.',
  },
} as const satisfies Record<string, ErrorCodeEntry>;

/**
 * Codes declared by areas. Each area's `errors.ts` adds its codes here (`declare module`), so a
 * code an area has not declared does not compile wherever it is thrown.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the areas' declaration merging.
export interface AreaErrorCodes {}

export type GeneralErrorCode = keyof typeof GENERAL_ERRORS;
export type ErrorCode = GeneralErrorCode | (keyof AreaErrorCodes & string);

/** Every declared code with its entry and the area that declared it (`general` for the kernel's). */
const DECLARED = new Map<string, ErrorCodeEntry & { area: string }>(
  Object.entries(GENERAL_ERRORS).map(([code, entry]) => [code, { ...entry, area: 'general' }]),
);

/**
 * Declares an area's codes. A code may be declared once in the whole server: a second
 * declaration (by the same area or another) throws at start-up, so two areas never give one
 * code two meanings.
 */
export function declareErrors<const T extends Record<string, ErrorCodeEntry>>(area: string, entries: T): T {
  for (const [code, entry] of Object.entries(entries)) {
    const earlier = DECLARED.get(code);
    if (earlier) throw new Error(`Error code ${code} of ${area} is already declared by ${earlier.area}.`);
    DECLARED.set(code, { ...entry, area });
  }
  return entries;
}

function entryOf(code: ErrorCode): ErrorCodeEntry {
  const entry = DECLARED.get(code);
  if (!entry) throw new Error(`Error code ${code} is thrown but never declared.`);
  return entry;
}

/** The wire shape of every refusal, over MCP (`isError: true`) and HTTP alike. */
export interface ErrorEnvelope {
  status: 'ERROR';
  error: {
    code: ErrorCode;
    retryable: boolean;
    message: string;
    other_readers: OtherReaders;
    details: Record<string, unknown>;
    /**
     * The next move, in words: what this caller can do now. Specific to the situation where the
     * code that refused knows it, the catalogue's general advice for the code otherwise.
     */
    next_action: string;
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
  /** Arguments known to fit the alternative (the caller adds the rest the tool needs). */
  arguments?: Record<string, unknown>;
}

/** Thrown by domain code; transports map it once through the catalog. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;
  readonly alternatives: Alternative[] | undefined;
  /** Overrides the catalog's retry hint where it depends on the case (e.g. an upstream 503). */
  readonly retryable: boolean | undefined;
  /** Overrides the catalog's next move where the situation says more (which tool, which id). */
  readonly next: string | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    details: Record<string, unknown> = {},
    extras: ErrorExtras = {},
  ) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
    this.alternatives = extras.alternatives;
    this.retryable = extras.retryable;
    this.next = extras.next;
  }
}

/** What a refusal may say beyond the catalogue's entry for its code. */
export interface ErrorExtras {
  alternatives?: Alternative[] | undefined;
  retryable?: boolean | undefined;
  next?: string | undefined;
}

/** Builds the envelope for a code from the catalog. */
export function errorEnvelope(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
  extras: ErrorExtras = {},
): ErrorEnvelope {
  const entry = entryOf(code);
  return {
    status: 'ERROR',
    error: {
      code,
      retryable: extras.retryable ?? entry.retryable,
      message,
      other_readers: entry.otherReaders,
      details,
      next_action: extras.next ?? entry.next,
      ...(extras.alternatives ? { allowed_alternatives: extras.alternatives } : {}),
    },
  };
}

/** Envelope for anything thrown: DomainErrors keep their code; everything else is INTERNAL. */
export function toErrorEnvelope(err: unknown, requestId: string): ErrorEnvelope {
  if (err instanceof DomainError) {
    return errorEnvelope(err.code, err.message, err.details, err);
  }
  return errorEnvelope('INTERNAL', 'Internal error; the operator can find it by request_id.', {
    request_id: requestId,
  });
}

/** Whether a stored string is one of the catalog's codes. */
export function isErrorCode(value: string): value is ErrorCode {
  return DECLARED.has(value);
}

/** The catalogue's retry hint for a code (a refusal may say otherwise for its case). */
export function retryableByDefault(code: ErrorCode): boolean {
  return entryOf(code).retryable;
}

export function httpStatusOf(code: ErrorCode): number {
  return entryOf(code).httpStatus;
}

/**
 * The public reference served at `/v1/public/errors`: the general codes, then each area's in
 * the order the catalogue lists the areas (each area's in the order it declares them).
 */
export function describeErrorCatalog(areaOrder: readonly string[]) {
  const rank = (area: string) => (area === 'general' ? -1 : areaOrder.indexOf(area));
  return [...DECLARED.entries()]
    .filter(([, e]) => e.area === 'general' || areaOrder.includes(e.area))
    .sort(([, a], [, b]) => rank(a.area) - rank(b.area))
    .map(([code, e]) => ({
      code,
      http_status: e.httpStatus,
      retryable: e.retryable,
      other_readers: e.otherReaders,
      when: e.when,
      next: e.next,
    }));
}
