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
  };
}

/** Thrown by domain code; transports map it once through the catalog. */
export class DomainError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'DomainError';
    this.code = code;
    this.details = details;
  }
}

/** Builds the envelope for a code from the catalog. */
export function errorEnvelope(
  code: ErrorCode,
  message: string,
  details: Record<string, unknown> = {},
): ErrorEnvelope {
  const entry: ErrorCodeEntry = ERROR_CATALOG[code];
  return {
    status: 'ERROR',
    error: { code, retryable: entry.retryable, message, other_readers: entry.otherReaders, details },
  };
}

/** Envelope for anything thrown: DomainErrors keep their code; everything else is INTERNAL. */
export function toErrorEnvelope(err: unknown, requestId: string): ErrorEnvelope {
  if (err instanceof DomainError) return errorEnvelope(err.code, err.message, err.details);
  return errorEnvelope('INTERNAL', 'Internal error; the operator can find it by request_id.', {
    request_id: requestId,
  });
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
