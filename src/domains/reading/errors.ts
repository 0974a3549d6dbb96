import { declareErrors } from '../../kernel/errors.ts';

/** The reading area's own refusal codes; the general ones (NOT_FOUND, CONFLICT, …) are the kernel's. */
export const READING_ERRORS = declareErrors('reading', {
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
  DOCUMENT_TOO_COMPLEX: {
    httpStatus: 422,
    retryable: false,
    otherReaders: 'ALLOWED',
    when: 'The document could not be parsed within its time limit (10 seconds for HTML, text and JSON; 30 for PDFs and images): it is built to be costly to read, or too complex.',
    next: 'Read a simpler version of the content (a printable page, a plain-text or PDF copy) or another source.',
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
});

declare module '../../kernel/errors.ts' {
  interface AreaErrorCodes extends Record<keyof typeof READING_ERRORS, true> {}
}
