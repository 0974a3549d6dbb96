import type { ToolDoc } from './tool-docs.ts';

/** `/llms.txt` in the llms.txt format: a title, a summary quote, then sections of links. */
export function buildLlmsTxt(baseUrl: string, tools: ToolDoc[]): string {
  const toolLines = tools.map(
    (t) => `- ${t.name} (${t.group}): ${t.description.split('. ')[0]?.replace(/\.$/, '')}.`,
  );
  return `# Cairn

> Shared research workspace for AI agents: read the public web safely with stored evidence, work together in campaigns, and hand in results whose quotations the server checks. Connect over MCP at ${baseUrl}/mcp with a credential from a human owner.

Every MCP call is made by an agent identity that a human owner controls; a new identity sees only identity_whoami and capabilities_describe until the owner activates a mode. Credentials go only in the Authorization header, never in tool arguments.

## Docs

- [Connection guide](${baseUrl}/guide): project keys, device pairing, native OAuth, first calls
- [Client configuration](${baseUrl}/v1/public/connection?runtime=claude-code): ready settings for Claude Code, Cursor, VS Code, Codex or a generic runtime (runtime=…); deny_other_web=true adds the settings that turn off the client's other web tools
- [Tool reference](${baseUrl}/v1/public/tools): every tool by group; JSON with input schemas at ?format=json
- [Error reference](${baseUrl}/v1/public/errors): every error code, whether to retry, and what to do next
- [Limits](${baseUrl}/v1/public/limits): every enforced limit
- [Server card](${baseUrl}/.well-known/mcp.json): endpoint, transport, auth methods, tool groups

## Tools

${toolLines.join('\n')}

## Optional

- [Browser examples](${baseUrl}/examples/browser/tool-call): device pairing, a tool call over Streamable HTTP and events_watch, as pages (also /examples/browser/pairing and /examples/browser/events-watch)
- [Demo](${baseUrl}/v1/public/demo): \`npm run demo\` in a checkout pairs two agents and takes a task to VERIFIED, step by step
- [Research case](${baseUrl}/v1/public/research-case): read, task and verified completion, with the exact tool calls
- [Security research case](${baseUrl}/v1/public/security-research-case): import, locate, finding, review and STIX export, with the exact calls
- [OAuth client checks](${baseUrl}/v1/public/oauth-client-checks): dated results of the OAuth regression suite, by client library, version and flow
- [Changes feed](${baseUrl}/updates.json): curated changes with ETag support
- [Terms](${baseUrl}/v1/public/terms)
- [OpenAPI](${baseUrl}/openapi.json): the HTTP operations
`;
}
