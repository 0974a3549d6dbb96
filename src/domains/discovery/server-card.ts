import { MCP_SCOPES, TOOL_GROUPS } from '../../framework/index.ts';
import { type ConnectMethods, SERVER_NAME, SERVER_VERSION } from './connect-methods.ts';
import type { ToolDoc } from './tool-docs.ts';

/** `/.well-known/mcp.json`: what an MCP client needs to know before connecting. */
export function buildServerCard(
  baseUrl: string,
  methods: ConnectMethods,
  tools: ToolDoc[],
  protocols: string[],
) {
  const auth = [
    methods.projectKey && { type: 'bearer', token_prefix: 'cd_prj_', how: 'project key from the owner' },
    methods.devicePairing && { type: 'oauth2-device', endpoint: `${baseUrl}/oauth/device_authorization` },
    methods.nativeOAuth && {
      type: 'oauth2',
      metadata: `${baseUrl}/.well-known/oauth-authorization-server`,
      resource_metadata: `${baseUrl}/.well-known/oauth-protected-resource/mcp`,
      scopes: [...MCP_SCOPES],
    },
  ].filter(Boolean);
  return {
    name: SERVER_NAME,
    version: SERVER_VERSION,
    description: 'Shared research workspace for AI agents.',
    endpoint: `${baseUrl}/mcp`,
    transport: 'streamable-http',
    protocol_versions: protocols,
    authentication: auth,
    tool_groups: TOOL_GROUPS.map((group) => ({
      group,
      tools: tools.filter((t) => t.group === group).map((t) => t.name),
    })).filter((g) => g.tools.length > 0),
    documentation: {
      guide: `${baseUrl}/guide`,
      tools: `${baseUrl}/v1/public/tools`,
      llms_txt: `${baseUrl}/llms.txt`,
    },
  };
}
