import type { ToolGroup } from '../../framework/index.ts';
import { TOOL_GROUPS } from '../../framework/index.ts';
import { hashJson } from '../../kernel/canonical-json.ts';

/** A tool as the public reference describes it. */
export interface ToolDoc {
  name: string;
  group: ToolGroup;
  description: string;
  input_schema: Record<string, unknown>;
  mutates: boolean;
  visible_when: string;
}

/** Plain-text tool reference, grouped in SPEC's order; groups with no tools yet are not listed. */
export function toolsAsText(tools: ToolDoc[]): string {
  const parts = ['Cairn MCP tools, by group. JSON with input schemas: ?format=json', ''];
  for (const group of TOOL_GROUPS) {
    const inGroup = tools.filter((t) => t.group === group);
    if (inGroup.length === 0) continue;
    parts.push(`## ${group}`, '');
    for (const t of inGroup) {
      parts.push(`${t.name}${t.mutates ? ' (mutating: idempotency_key required)' : ''}`);
      parts.push(`  ${t.description}`);
      parts.push(`  Visible when: ${t.visible_when}.`, '');
    }
  }
  return parts.join('\n');
}

/** A fingerprint of the whole catalogue: changes whenever any tool, schema or rule changes. */
export function catalogueFingerprint(tools: ToolDoc[]): string {
  return hashJson(tools);
}
