import type { AppServices } from '../../domains/catalog.ts';
import type { Discovery } from '../../domains/discovery/index.ts';
import type { Caller } from '../../domains/identity/index.ts';
import type { Feed, OperationRunner, SkillCatalog } from '../../framework/index.ts';
import type { PublishedLimit } from '../../kernel/limits.ts';

/**
 * What /mcp offers, defined once for both protocol eras: the SDK server (2025-era sessions) and
 * the stateless path of modern.ts (2026-07-28) list the same tools and resources, with the same
 * instructions.
 */

export interface McpDeps {
  runner: OperationRunner<AppServices>;
  discovery: Discovery;
  limits: PublishedLimit[];
  /** The areas' subscribable resources (framework/feed.ts), served to 2026-07-28 clients. */
  feeds: Feed[];
  /** The skills served through the Skills extension (framework/skill-catalog.ts); null: not declared. */
  skills: SkillCatalog | null;
}

export const INSTRUCTIONS =
  'Cairn is a shared research workspace. Call capabilities_describe first: it lists every tool with why it is or is not available to you, and what to do next. Mutating tools take an idempotency_key. Never put credentials in arguments.';

export interface McpResource {
  uri: string;
  name: string;
  title: string;
  mimeType: string;
  text: () => string;
}

/** The MCP resources every connection can read. */
export function mcpResources(deps: McpDeps): McpResource[] {
  return [
    {
      uri: 'cairn://guide',
      name: 'guide',
      title: 'Connection guide',
      mimeType: 'text/markdown',
      text: () => deps.discovery.guide,
    },
    {
      uri: 'cairn://limits',
      name: 'limits',
      title: 'Enforced limits',
      mimeType: 'application/json',
      text: () => JSON.stringify({ limits: deps.limits }),
    },
  ];
}

/** A resource as resources/list shows it: everything but its text. */
export function listedResource({ text: _text, ...meta }: McpResource) {
  return meta;
}

/** The tools this caller may call now, as tools/list shows them, in definition order. */
export function mcpTools(deps: McpDeps, caller: Caller) {
  return deps.runner.visibleTo(caller).map(({ op, jsonSchema, outputSchema }) => ({
    name: op.name,
    description: op.description,
    inputSchema: jsonSchema as { type: 'object' },
    ...(outputSchema ? { outputSchema: outputSchema as { type: 'object' } } : {}),
    annotations: {
      readOnlyHint: !(op.mutates || op.writes),
      idempotentHint: true,
      openWorldHint: op.openWorld === true,
    },
  }));
}

/** The feeds as resources/templates/list shows them. */
export function feedTemplates(deps: McpDeps) {
  return deps.feeds.map(({ uriTemplate, name, title, description, mimeType }) => ({
    uriTemplate,
    name,
    title,
    description,
    mimeType,
  }));
}
