/**
 * The standard request headers of MCP 2026-07-28 Streamable HTTP ("Standard MCP Request
 * Headers"): a POST names its method in `Mcp-Method` and, for tools/call, prompts/get and
 * resources/read, its target in `Mcp-Name`, so that a gateway can route on headers alone. The
 * server MUST check them against the body, since a header and a body that disagree would let
 * an intermediary's decision and the server's action differ (HeaderMismatch, -32020).
 */

const SENTINEL_PREFIX = '=?base64?';
const SENTINEL_SUFFIX = '?=';
/** RFC 4648 §4 base64 with its padding: the only form the sentinel may carry. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
/** What a literal header value may hold: visible ASCII and inner spaces (other text is sent base64). */
const LITERAL = /^[\x20-\x7e]*$/;

/** The methods whose target travels in Mcp-Name, and the body field it must equal. */
const NAMED: Record<string, 'name' | 'uri'> = {
  'tools/call': 'name',
  'prompts/get': 'name',
  'resources/read': 'uri',
};

/**
 * A header's value as the client meant it: outer whitespace trimmed (RFC 9110 §5.5), the
 * base64 sentinel decoded; null when the value cannot be read (bad base64, bytes that are
 * neither ASCII nor encoded). A value missing the prefix or the suffix is a literal.
 */
export function headerValue(raw: string): string | null {
  const value = raw.replace(/^[ \t]+|[ \t]+$/g, '');
  if (value.startsWith(SENTINEL_PREFIX) && value.endsWith(SENTINEL_SUFFIX) && value.length >= 11) {
    const encoded = value.slice(SENTINEL_PREFIX.length, -SENTINEL_SUFFIX.length);
    if (!BASE64.test(encoded)) return null;
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(encoded, 'base64'));
    } catch {
      return null;
    }
  }
  return LITERAL.test(value) ? value : null;
}

/**
 * Why the headers do not match the body, or null when they do. `headers` are the request's
 * (Node lower-cases their names, so `MCP-METHOD` and `mcp-method` are one header); values are
 * compared exactly, case included.
 */
export function headerMismatch(
  headers: Record<string, string | string[] | undefined>,
  method: string,
  params: Record<string, unknown>,
): string | null {
  const single = (name: string) => {
    const value = headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  };
  const methodHeader = single('mcp-method');
  if (methodHeader === undefined) {
    return `The Mcp-Method header is missing; send Mcp-Method: ${printable(method)}.`;
  }
  const sentMethod = headerValue(methodHeader);
  if (sentMethod === null)
    return 'The Mcp-Method header holds characters it may not; send the method as it is in the body.';
  if (sentMethod !== method) {
    return `Header mismatch: Mcp-Method header value '${printable(sentMethod)}' does not match body value '${printable(method)}'.`;
  }
  const field = NAMED[method];
  if (!field) return null;
  const target = params[field];
  // A body without its target is the body's fault; the method's own params check says so.
  if (typeof target !== 'string') return null;
  const nameHeader = single('mcp-name');
  if (nameHeader === undefined) {
    return `The Mcp-Name header is missing; ${method} sends its params.${field} as Mcp-Name.`;
  }
  const sentName = headerValue(nameHeader);
  if (sentName === null) {
    return 'The Mcp-Name header is not readable: a value beyond visible ASCII goes as =?base64?<base64 of its UTF-8>?=, with valid base64.';
  }
  if (sentName !== target) {
    return `Header mismatch: Mcp-Name header value '${printable(sentName)}' does not match body value '${printable(target)}'.`;
  }
  return null;
}

/** A value quoted back to the caller: short, and nothing that could break a log line. */
function printable(value: string): string {
  return value.slice(0, 100).replace(/[^\x20-\x7e]/g, '?');
}
