/** The identity area's public surface: owners, agents, credentials, MCP sessions. */
export { ALWAYS, identityAlwaysOperations, identityOperations, whenActive } from './operations.ts';
export { inactiveReason, isActive } from './policy.ts';
export { type Authenticated, IdentityService } from './service.ts';
export { SessionService } from './sessions.ts';
export type { AboutYou, Agent, Caller } from './types.ts';
