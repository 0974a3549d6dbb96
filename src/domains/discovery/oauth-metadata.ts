import { MCP_SCOPES } from '../../framework/index.ts';
/**
 * The OAuth discovery documents (RFC 9728 for the protected resource, RFC 8414 for the
 * authorization server). MCP clients read them to find where to register and sign in.
 */

import { DEVICE_GRANT } from '../identity/index.ts';

/** `/.well-known/oauth-protected-resource/mcp`: the MCP endpoint and who issues its tokens. */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: `${baseUrl}/mcp`,
    authorization_servers: [baseUrl],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Cairn',
    resource_documentation: `${baseUrl}/guide`,
  };
}

/** `/.well-known/oauth-authorization-server`: endpoints, grants and methods Cairn supports. */
export function authorizationServerMetadata(baseUrl: string) {
  const authMethods = ['none', 'client_secret_post', 'client_secret_basic'];
  return {
    issuer: baseUrl,
    authorization_endpoint: `${baseUrl}/oauth/authorize`,
    token_endpoint: `${baseUrl}/oauth/token`,
    registration_endpoint: `${baseUrl}/oauth/register`,
    revocation_endpoint: `${baseUrl}/oauth/revoke`,
    device_authorization_endpoint: `${baseUrl}/oauth/device_authorization`,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', DEVICE_GRANT, 'client_credentials'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: authMethods,
    revocation_endpoint_auth_methods_supported: authMethods,
    scopes_supported: [...MCP_SCOPES],
    authorization_response_iss_parameter_supported: true,
    // A client may name itself by the https URL of its metadata document, without registering.
    client_id_metadata_document_supported: true,
    service_documentation: `${baseUrl}/guide`,
  };
}
