import type { FastifyInstance } from 'fastify';
import { normalizeOrigin } from '../../config/config.ts';
import { sendError } from '../../web/http/error-handler.ts';

/**
 * DNS-rebinding protection for /mcp (MCP Streamable HTTP, "Security Warning"): a page whose own
 * name an attacker re-points at this server's address reaches it with the attacker's name in
 * Host and the attacker's origin in Origin. So /mcp answers only the names it is published
 * under and, when a browser says where the page comes from, only the origins it allows.
 */
export interface RequestPolicy {
  /** Whether a Host value (host or host:port) is one /mcp answers to; `defaultPort` fills a missing port. */
  hostAllowed(host: string, defaultPort: number): boolean;
  /** Whether a present Origin header is allowed. */
  originAllowed(origin: string): boolean;
  /** Every origin is allowed (CAIRN_ALLOWED_ORIGINS=*). */
  anyOrigin: boolean;
}

/** Names that all mean this machine: a loopback base URL answers to each of them. */
const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** A Host header value split into a lower-case name (IPv6 bracketed, no trailing dot) and a port. */
function parseHost(value: string): { name: string; port: number | null } | null {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+)(?::(\d{1,5}))?$/i.exec(value.trim());
  if (!match?.[1]) return null;
  return { name: match[1].toLowerCase().replace(/\.$/, ''), port: match[2] ? Number(match[2]) : null };
}

/**
 * The policy for a base URL plus the operator's lists (already validated and normalized by the
 * configuration). The base URL's host is matched on its name alone: a rebinding page controls
 * the name, not the port. A listed `host:port` matches that port only.
 */
export function requestPolicy(
  baseUrl: string,
  allowedHosts: readonly string[],
  allowedOrigins: readonly string[],
): RequestPolicy {
  const base = new URL(baseUrl);
  const loopback = LOOPBACK.includes(base.hostname);
  const names = new Set(loopback ? LOOPBACK : [base.hostname.replace(/\.$/, '')]);
  const hosts = allowedHosts.map(parseHost).filter((h) => h !== null);
  const origins = new Set(allowedOrigins);
  origins.add(base.origin);
  if (loopback) {
    for (const name of LOOPBACK) origins.add(`${base.protocol}//${name}${base.port ? `:${base.port}` : ''}`);
  }
  const anyOrigin = origins.has('*');
  return {
    anyOrigin,
    hostAllowed(value, defaultPort) {
      const host = parseHost(value);
      if (!host) return false;
      if (names.has(host.name)) return true;
      const port = host.port ?? defaultPort;
      return hosts.some((h) => h.name === host.name && (h.port === null || h.port === port));
    },
    originAllowed(value) {
      if (anyOrigin) return true;
      const origin = normalizeOrigin(value);
      return origin !== null && origins.has(origin);
    },
  };
}

/**
 * Refuses, before anything else of /mcp runs (authentication, CORS, the body), a request whose
 * Host is not one /mcp answers to, or whose Origin is present and not allowed. Preflights too:
 * a browser then refuses to send the real request. Behind a trusted proxy (CAIRN_TRUST_PROXY)
 * the host is the proxy's X-Forwarded-Host when it sends one.
 */
export function guardHostAndOrigin(app: FastifyInstance, baseUrl: string, policy: RequestPolicy): void {
  const published = new URL(baseUrl).host;
  app.addHook('onRequest', async (req, reply) => {
    const host = req.host;
    if (!policy.hostAllowed(host, req.protocol === 'https' ? 443 : 80)) {
      req.log.warn({ host }, 'mcp request refused: host not allowed');
      return sendError(
        reply,
        baseUrl,
        'HOST_NOT_ALLOWED',
        `This server does not answer /mcp for the host "${host.slice(0, 100)}"; it is published as ${published}.`,
        { host: host.slice(0, 255), expected_host: published },
        {
          next: `Call ${baseUrl}/mcp. An operator who serves /mcp under this name on purpose sets CAIRN_BASE_URL to it or adds it to CAIRN_ALLOWED_HOSTS; behind a reverse proxy, the proxy must pass the Host header on (or X-Forwarded-Host, with CAIRN_TRUST_PROXY).`,
        },
      );
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !policy.originAllowed(origin)) {
      req.log.warn({ origin }, 'mcp request refused: origin not allowed');
      return sendError(
        reply,
        baseUrl,
        'ORIGIN_NOT_ALLOWED',
        `This server does not answer /mcp for pages from the origin "${origin.slice(0, 100)}".`,
        { origin: origin.slice(0, 255) },
        {
          next: `Call from a client that is not a web page, or from an allowed origin. An operator who trusts this origin adds it to CAIRN_ALLOWED_ORIGINS.`,
        },
      );
    }
  });
}
