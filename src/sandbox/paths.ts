/**
 * Paths inside a run's tree. The program names files with plain relative paths; anything that
 * could point outside the tree (`..`, absolute paths, backslashes, drive letters, control
 * characters) is refused rather than repaired, so a program learns at once that it cannot leave.
 */
import { SANDBOX_LIMITS } from './types.ts';

/** A path the program may not use; its message is shown to the program as an Error. */
export class SandboxPathError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SandboxPathError';
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is refused.
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The canonical form of a workspace path: '/'-separated, no empty or '.' segments.
 * @throws SandboxPathError for '..' segments, absolute or drive paths, backslashes, control
 *   characters, an empty path, or one over the length or depth limit.
 */
export function normalizePath(raw: string): string {
  if (typeof raw !== 'string' || raw.length === 0)
    throw new SandboxPathError('A path must be a non-empty string.');
  if (raw.length > SANDBOX_LIMITS.pathChars) {
    throw new SandboxPathError(`A path may have at most ${SANDBOX_LIMITS.pathChars} characters.`);
  }
  if (raw.includes('\\')) throw new SandboxPathError(`Backslashes are not allowed in paths: ${raw}`);
  if (CONTROL.test(raw)) throw new SandboxPathError('Control characters are not allowed in paths.');
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) {
    throw new SandboxPathError(`Absolute paths are outside the workspace: ${raw}`);
  }
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  if (segments.includes('..')) throw new SandboxPathError(`'..' is not allowed in paths: ${raw}`);
  if (segments.length === 0) throw new SandboxPathError(`Not a file path: ${raw}`);
  if (segments.length > SANDBOX_LIMITS.pathDepth) {
    throw new SandboxPathError(`A path may be at most ${SANDBOX_LIMITS.pathDepth} folders deep.`);
  }
  return segments.join('/');
}

/** The folder of a normalised path ('' for the root). */
export function dirOf(path: string): string {
  const cut = path.lastIndexOf('/');
  return cut < 0 ? '' : path.slice(0, cut);
}

/**
 * Where `require(specifier)` from a module in folder `fromDir` points, before extensions are
 * tried. Only relative specifiers name files of the tree; '..' may climb within it, never above.
 * @throws SandboxPathError for bare names (no built-in or installed modules exist here), absolute
 *   paths and climbs above the root.
 */
export function resolveSpecifier(fromDir: string, specifier: string): string {
  if (typeof specifier !== 'string' || !(specifier.startsWith('./') || specifier.startsWith('../'))) {
    throw new SandboxPathError(
      `Cannot find module '${String(specifier)}': the sandbox has no built-in or installed modules; require files of the workspace with a relative path ('./lib.js').`,
    );
  }
  if (specifier.includes('\\') || CONTROL.test(specifier)) {
    throw new SandboxPathError(`Cannot find module '${specifier}'.`);
  }
  const parts = fromDir === '' ? [] : fromDir.split('/');
  for (const segment of specifier.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (parts.length === 0)
        throw new SandboxPathError(`Cannot find module '${specifier}': it is outside the workspace.`);
      parts.pop();
    } else {
      parts.push(segment);
    }
  }
  if (parts.length === 0) throw new SandboxPathError(`Cannot find module '${specifier}'.`);
  return normalizePath(parts.join('/'));
}

/** The files `require` tries for a resolved path, in order (Node's order for files). */
export function moduleCandidates(path: string): string[] {
  return [path, `${path}.js`, `${path}.json`, `${path}/index.js`];
}
