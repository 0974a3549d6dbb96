/** Challenge packages: the format, its validator, the loader and the deterministic verifier. */
export { contentSha256, packageSha256, worldSha256 } from './hash.ts';
export { BUILTIN_CHALLENGES_DIR, builtinChallenges, loadChallengeDir, readChallengeDir } from './load.ts';
export {
  ARENA_TOOL_NAMES,
  CHALLENGE_LIMITS,
  type Challenge,
  type ChallengeSource,
  type Check,
  challengeSchema,
  MESSAGE_TYPES,
  type MessageType,
  type RubricLine,
} from './schema.ts';
export type {
  ChallengeProblem,
  LoadedChallenge,
  PackageFile,
  RubricResult,
  RunMessage,
  SimulatedSource,
  VerifyInput,
  VerifyResult,
  WorldFile,
} from './types.ts';
export { CHALLENGE_JSON, checkChallengePackage, type PackageCheck } from './validate.ts';
export { type VerifierSandbox, verifyRun } from './verify.ts';
