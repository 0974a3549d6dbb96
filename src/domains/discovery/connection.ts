import type { ConnectMethods } from './connect-methods.ts';

/**
 * `GET /v1/public/connection` (SPEC Public endpoints): a ready configuration for one MCP client,
 * built from this server's own base URL and connect methods, so it cannot go stale. With
 * `deny_other_web`, the client's own settings that turn off its other web tools, so every read
 * goes through Cairn's guarded reader; where a client has no file setting for that, the answer
 * says so and names the manual step instead of pretending (docs/decisions.md, "Connection
 * documents").
 */

export const RUNTIMES = ['claude-code', 'cursor', 'vscode', 'codex', 'generic'] as const;
export type Runtime = (typeof RUNTIMES)[number];
/** The default when no runtime is named: the coding agent most users arrive with. */
export const DEFAULT_RUNTIME: Runtime = 'claude-code';

/** The environment variable the examples read a project key from; never the key itself. */
const KEY_VAR = 'CAIRN_PROJECT_KEY';

interface Step {
  kind: 'command' | 'file' | 'manual';
  /** For files: where it goes, relative to the project unless it starts with ~. */
  path?: string;
  /** A command line, or a file's whole content (JSON as an object, TOML and Markdown as text). */
  content?: unknown;
  text: string;
}

interface ClientGuide {
  name: string;
  setup: (mcp: string, methods: ConnectMethods) => Step[];
  denyOtherWeb: Step[];
  /** Whether denyOtherWeb is a file the client applies by itself (else a manual step). */
  denyIsSetting: boolean;
}

const CLIENTS: Record<Runtime, ClientGuide> = {
  'claude-code': {
    name: 'Claude Code',
    setup: (mcp, methods) => [
      ...(methods.nativeOAuth
        ? [
            {
              kind: 'command' as const,
              content: `claude mcp add --transport http cairn ${mcp}`,
              text: 'Add Cairn with no header; Claude Code signs in with OAuth on first use (your owner approves in the browser).',
            },
          ]
        : []),
      {
        kind: 'file',
        path: '.mcp.json',
        content: {
          mcpServers: {
            cairn: { type: 'http', url: mcp, headers: { Authorization: `Bearer \${${KEY_VAR}}` } },
          },
        },
        text: `Or, with a project key from your owner in the environment variable ${KEY_VAR}: Claude Code expands \${${KEY_VAR}} itself, so the key stays out of the file.`,
      },
    ],
    denyOtherWeb: [
      {
        kind: 'file',
        path: '.claude/settings.json',
        content: { permissions: { deny: ['WebFetch', 'WebSearch'] } },
        text: "Deny Claude Code's own WebFetch and WebSearch tools (merge into an existing file's permissions.deny).",
      },
    ],
    denyIsSetting: true,
  },
  cursor: {
    name: 'Cursor',
    setup: (mcp) => [
      {
        kind: 'file',
        path: '.cursor/mcp.json',
        content: {
          mcpServers: { cairn: { url: mcp, headers: { Authorization: `Bearer \${env:${KEY_VAR}}` } } },
        },
        text: `With a project key in ${KEY_VAR} (Cursor expands \${env:…}). Without the headers entry, Cursor signs in with OAuth where this server offers it.`,
      },
    ],
    denyOtherWeb: [
      {
        kind: 'manual',
        text: "Cursor has no project file setting for its built-in web search; turn it off in Cursor's settings (Chat, web search tool) for the agents that should read only through Cairn.",
      },
    ],
    denyIsSetting: false,
  },
  vscode: {
    name: 'VS Code',
    setup: (mcp) => [
      {
        kind: 'file',
        path: '.vscode/mcp.json',
        content: {
          servers: {
            // biome-ignore lint/suspicious/noTemplateCurlyInString: VS Code's own input syntax, meant literally
            cairn: { type: 'http', url: mcp, headers: { Authorization: 'Bearer ${input:cairn-key}' } },
          },
          inputs: [
            { type: 'promptString', id: 'cairn-key', description: 'Cairn project key', password: true },
          ],
        },
        text: 'VS Code asks for the project key once and keeps it in its secret storage. Without the headers entry it signs in with OAuth where this server offers it.',
      },
    ],
    denyOtherWeb: [
      {
        kind: 'manual',
        text: "In the chat's tool picker, untick the built-in fetch and web search tools for agent mode, leaving Cairn's tools; VS Code keeps that choice per workspace.",
      },
    ],
    denyIsSetting: false,
  },
  codex: {
    name: 'Codex',
    setup: (mcp) => [
      {
        kind: 'file',
        path: '~/.codex/config.toml',
        content: `[mcp_servers.cairn]\nurl = "${mcp}"\nbearer_token_env_var = "${KEY_VAR}"\n`,
        text: `Codex reads the project key from ${KEY_VAR}; omit bearer_token_env_var to sign in with OAuth (codex mcp login cairn) where this server offers it.`,
      },
    ],
    denyOtherWeb: [
      {
        kind: 'file',
        path: '~/.codex/config.toml',
        content: 'web_search = "disabled"\n',
        text: "Turn off Codex's own web search (a root key: put it above the [mcp_servers.cairn] table).",
      },
    ],
    denyIsSetting: true,
  },
  generic: {
    name: 'Your own runtime',
    setup: (mcp) => [
      {
        kind: 'manual',
        content: {
          url: mcp,
          method: 'POST',
          headers: {
            Authorization: 'Bearer <project key or access token>',
            'Content-Type': 'application/json',
            Accept: 'application/json, text/event-stream',
          },
        },
        text: 'MCP Streamable HTTP: POST JSON-RPC 2.0 (initialize, then tools/list and tools/call); answers are JSON or SSE.',
      },
    ],
    denyOtherWeb: [
      {
        kind: 'manual',
        text: 'Give the model no other tool that fetches URLs or searches the web, so its reads go through fetch_text and web_search here.',
      },
    ],
    denyIsSetting: false,
  },
};

export function buildConnection(
  baseUrl: string,
  methods: ConnectMethods,
  runtime: Runtime,
  denyOtherWeb: boolean,
) {
  const mcp = `${baseUrl}/mcp`;
  const client = CLIENTS[runtime];
  return {
    runtime,
    client: client.name,
    mcp_url: mcp,
    transport: 'streamable-http',
    setup: client.setup(mcp, methods),
    deny_other_web: denyOtherWeb
      ? { requested: true, applied_by_setting: client.denyIsSetting, steps: client.denyOtherWeb }
      : { requested: false, how: `${baseUrl}/v1/public/connection?runtime=${runtime}&deny_other_web=true` },
    supported_runtimes: [...RUNTIMES],
    next_steps: [
      'Connect, then call capabilities_describe: it lists what this identity may do now and why.',
      `The whole guide: ${baseUrl}/guide`,
    ],
  };
}
