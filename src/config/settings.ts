import { z } from 'zod';

/**
 * An area's settings fragment (docs/configuration.md): the environment variables it reads, each
 * with its rule and default, the checks across them, and the typed settings they become. The
 * catalogue gathers every area's (domains/catalog.ts, loadAppConfig) and config.ts parses them in
 * one pass with the server's own, so an operator sees every bad variable at once. The typed
 * settings join `Config` through `AreaSettings`, which each area extends with a `declare module`
 * block, so `config.mail` is typed where it is read.
 */

// biome-ignore lint/suspicious/noEmptyInterface: filled in by the areas' settings fragments.
export interface AreaSettings {}

/** What a fragment may build on: the server's own settings, resolved first. */
export interface BaseSettings {
  /** The listen address (HOST). */
  host: string;
  /** The public address (CAIRN_BASE_URL, or built from HOST and PORT). */
  baseUrl: string;
}

export interface SettingsFragment {
  /** Its variables, each with its rule and default. */
  env: z.ZodRawShape;
  /** Variables whose values an error never repeats (keys, tokens). */
  secrets?: ReadonlyArray<string>;
  /** Problems across its variables (half of a pair set), each starting with the variable's name. */
  check?(env: Record<string, unknown>, given: (name: string) => boolean): string[];
  /** Its typed settings, from its parsed variables. */
  read(env: Record<string, unknown>, base: BaseSettings): Partial<AreaSettings>;
}

/** A fragment whose checks and reader see its own variables, typed by their rules. */
export function defineSettings<S extends z.ZodRawShape>(spec: {
  env: S;
  secrets?: ReadonlyArray<keyof S & string>;
  check?(env: z.infer<z.ZodObject<S>>, given: (name: keyof S & string) => boolean): string[];
  read(env: z.infer<z.ZodObject<S>>, base: BaseSettings): Partial<AreaSettings>;
}): SettingsFragment {
  return spec as unknown as SettingsFragment;
}

/**
 * Half of a pair set is silently ignored otherwise (no STARTTLS, a provider route answering 404):
 * the missing half, named with why both are needed.
 */
export function missingHalves<N extends string>(
  given: (name: N) => boolean,
  pairs: ReadonlyArray<[N, N, string]>,
): string[] {
  return pairs
    .filter(([a, b]) => given(a) !== given(b))
    .map(([a, b, why]) =>
      given(a) ? `${b}: required with ${a} (${why})` : `${a}: required with ${b} (${why})`,
    );
}

export { z };
