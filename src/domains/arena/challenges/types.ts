/** Plain types of challenge packages, their loading and their verification. */
import type { Challenge, ChallengeSource, MessageType } from './schema.ts';

/** One violation of the package rules; `path` is a package path or `challenge.json#<field>`. */
export interface ChallengeProblem {
  path: string;
  rule: string;
  message: string;
}

/** One file of a package as read from disk: a relative '/'-separated path and its bytes. */
export interface PackageFile {
  path: string;
  bytes: Uint8Array;
}

/** One text file of a workspace. */
export interface WorldFile {
  path: string;
  content: string;
}

/** A simulated source the lab serves during a run. */
export interface SimulatedSource {
  title: string;
  url: string;
  text: string;
  kind: ChallengeSource['kind'];
}

/** A validated challenge version, ready to seed runs and verify them. */
export interface LoadedChallenge {
  challenge: Challenge;
  /** The workspace seed, paths relative to the world folder, sorted. */
  worldFiles: WorldFile[];
  sources: Map<string, SimulatedSource>;
  /** Hex SHA-256 of the canonical package (see {@link packageSha256}). */
  sha256: string;
}

/** A message of the run's TEAM thread, reduced to what the verifier reads. */
export interface RunMessage {
  type: MessageType | string;
  from_role: string;
  to_role: string | null;
}

/** What the verifier is given at `result_verify`. */
export interface VerifyInput {
  /** Submitted artifacts by name (the latest submission of each). */
  artifacts: Map<string, string>;
  /** The final workspace. */
  workspace: WorldFile[];
  messages: RunMessage[];
}

export interface RubricResult {
  id: string;
  points: number;
  max_points: number;
  note: string;
}

export interface VerifyResult {
  score: number;
  max_score: number;
  rubric: RubricResult[];
}
