import type { Doors } from '../../../framework/index.ts';
import { nativeOAuthRoutes } from '../http/native-oauth-routes.ts';
import { oauthRoutes } from '../http/oauth-routes.ts';
import { agentOperations } from './agent-operations.ts';
import { authRoutes } from './auth-routes.ts';
import { oauthConsoleRoutes } from './consent-routes.ts';
import type { ConsoleContext, IdentityDoorServices } from './context.ts';
import { identityRoutes } from './identity-routes.ts';
import { oauthOperations } from './oauth-operations.ts';
import { ownerTokenOperations } from './owner-token-operations.ts';
import { ownerTokenRoutes } from './owner-token-routes.ts';
import { pairRoutes } from './pair-routes.ts';

/** The OAuth endpoints' services and rate limit, from the door context. */
const oauthDeps = (ctx: ConsoleContext) => ({
  device: ctx.device,
  identity: ctx.identity,
  tokens: ctx.tokens,
  secrets: ctx.secrets,
  clients: ctx.oauthClients,
  documents: ctx.clientDocuments,
  consent: ctx.oauth,
  grants: ctx.grants,
  baseUrl: ctx.baseUrl,
  ratePerMinute: ctx.config.publicRateLimitPerMinute,
  redis: ctx.redis,
});

/**
 * Identity's doors besides its tools: sign-up and sign-in, the owner's identities, pairing,
 * owner API tokens and the native-OAuth consent pages in the console; their `/v1` routes; and
 * the OAuth endpoints (`/oauth/…`, device and native flows), each with its own rate limit.
 */
export const identityDoors: Doors<IdentityDoorServices> = {
  nav: [
    { key: 'identities', href: '/console', label: 'Identities', order: 10 },
    { key: 'new', href: '/console/identities/new', label: 'Create identity', order: 20 },
    { key: 'pair', href: '/pair', label: 'Pair an agent', order: 30 },
    { key: 'connections', href: '/console/connections', label: 'Connections', order: 90 },
    { key: 'tokens', href: '/console/tokens', label: 'API tokens', order: 100 },
    { key: 'audit', href: '/console/audit', label: 'Audit log', order: 110 },
  ],
  pages(app, ctx) {
    authRoutes(app, ctx);
    identityRoutes(app, ctx);
    pairRoutes(app, ctx);
    oauthConsoleRoutes(app, ctx);
    ownerTokenRoutes(app, ctx);
  },
  ownerOperations: [...oauthOperations, ...ownerTokenOperations, ...agentOperations],
  async publicRoutes(app, ctx) {
    await app.register(async (scope) => oauthRoutes(scope, oauthDeps(ctx)));
    await app.register(async (scope) => nativeOAuthRoutes(scope, oauthDeps(ctx)));
  },
};
