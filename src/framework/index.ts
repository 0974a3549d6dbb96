import type * as tables from './tables.ts';

/** The operation framework every area defines its tools with, and the runner every door calls. */

export {
  type Area,
  type Core,
  type Extensions,
  gatherExtensions,
  gatherParts,
  type ServicesOf,
  type Started,
  startAreas,
  type UnionToIntersection,
  type Worker,
} from './area.ts';
export { CommitValue } from './commit-value.ts';
export type { DoorContext, Doors, Listener, OwnerOf, PageParts, PartOf } from './doors.ts';
export { FEED_LIMITS, type Feed, type FeedFollow, feedUri } from './feed.ts';
export { isForm, joinForms, type ToolForm } from './forms.ts';
export { earlierAnswer, runOnce } from './idempotency-repo.ts';
export { FRAMEWORK_LIMITS } from './limits.ts';
export {
  defineOperation,
  type Operation,
  type OperationContext,
  TOOL_GROUPS,
  type ToolAvailability,
  type ToolGroup,
  type Visibility,
} from './operation.ts';
export { move, nextSteps, publishedOutputSchema, refusal, timestamp } from './output.ts';
export {
  defineOwnerOperation,
  type OwnerInput,
  type OwnerOperation,
} from './owner-operation.ts';
export {
  idempotencyKey,
  type OperationOutcome,
  OperationRunner,
  type RegisteredOperation,
} from './runner.ts';
export {
  DEFAULT_SCOPE,
  MCP_SCOPES,
  type McpScope,
  parseScopes,
  SCOPE_MEANINGS,
  scopeNeeded,
  scopeString,
  scopesCover,
} from './scopes.ts';
export {
  SKILLS_EXTENSION,
  type SkillCatalog,
  type SkillEntry,
  type SkillFileContent,
} from './skill-catalog.ts';

/** The area's tables, added to the schema type of every database handle (storage/tables.ts). */
type OwnTables = typeof tables;
declare module '../storage/tables.ts' {
  interface Tables extends OwnTables {}
}

export {
  type AnyCommand,
  type CliCore,
  type CliDoor,
  type Command,
  defineCommand,
  type OfflineCommand,
} from './cli.ts';
export {
  type Audience,
  type Camelized,
  defineTool,
  type StrictArgs,
  type ToolSpec,
} from './tool.ts';
