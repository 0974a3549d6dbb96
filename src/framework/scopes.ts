import type { Operation } from './operation.ts';

/**
 * The OAuth scopes an access token can be approved for (issue 42 item 4), and which tools each
 * covers. `mcp`, the default, is everything the identity may do; the narrower ones let an owner
 * approve a client for less: `mcp:read` for tools that change nothing, `mcp:arena` for the Arena.
 * A scope never adds to what the identity may do (its mode, memberships and grants decide that);
 * it only takes away. The tools every caller has (the Always group) need no scope.
 */
export const MCP_SCOPES = ['mcp', 'mcp:read', 'mcp:arena'] as const;
export type McpScope = (typeof MCP_SCOPES)[number];
export const DEFAULT_SCOPE: McpScope = 'mcp';

/** Each scope in a sentence, as the consent page and the metadata documents say it. */
export const SCOPE_MEANINGS: Record<McpScope, string> = {
  mcp: 'everything this identity may do through Cairn’s tools',
  'mcp:read': 'only the tools that read and change nothing',
  'mcp:arena': 'only the Arena’s tools',
};

/**
 * The scopes a space-delimited request asks for (RFC 6749 §3.3), each once, in MCP_SCOPES order;
 * absent or blank asks for the default. Null when it names a scope Cairn does not grant.
 */
export function parseScopes(raw: string | undefined): McpScope[] | null {
  const asked = (raw ?? '').split(' ').filter((s) => s !== '');
  if (asked.length === 0) return [DEFAULT_SCOPE];
  if (asked.some((s) => !(MCP_SCOPES as readonly string[]).includes(s))) return null;
  return MCP_SCOPES.filter((s) => asked.includes(s));
}

/** Scopes as one space-delimited string, in MCP_SCOPES order, each once. */
export function scopeString(scopes: readonly string[]): string {
  return MCP_SCOPES.filter((s) => scopes.includes(s)).join(' ');
}

type Scoped = Pick<Operation<unknown>, 'group' | 'mutates' | 'writes'>;
const readsOnly = (op: Scoped) => !op.mutates && !op.writes;

/** The narrowest scope that covers the tool; null for the tools every caller has. */
export function scopeNeeded(op: Scoped): McpScope | null {
  if (op.group === 'Always') return null;
  if (op.group === 'Arena') return 'mcp:arena';
  return readsOnly(op) ? 'mcp:read' : 'mcp';
}

/** Whether a credential's scopes (absent: no limit) let it call the tool. */
export function scopesCover(scopes: readonly string[] | undefined, op: Scoped): boolean {
  if (scopes === undefined || scopes.includes('mcp')) return true;
  const needed = scopeNeeded(op);
  return needed === null || scopes.includes(needed) || (readsOnly(op) && scopes.includes('mcp:read'));
}
