/** The operation framework every area defines its tools with, and the runner every door calls. */
export {
  defineOperation,
  type Operation,
  type OperationContext,
  TOOL_GROUPS,
  type ToolAvailability,
  type ToolGroup,
  type Visibility,
} from './operation.ts';
export { type OperationOutcome, OperationRunner, type RegisteredOperation } from './runner.ts';
