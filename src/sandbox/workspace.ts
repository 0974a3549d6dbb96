/**
 * The run's file tree as the program sees it: a private copy of the request's files, changed
 * only through `sandbox.writeFile` and `sandbox.deleteFile`, within the per-file, file-count
 * and total-size caps. At the end it tells what differs from the input.
 */
import { moduleCandidates, normalizePath, resolveSpecifier, SandboxPathError } from './paths.ts';
import type { RunLimits, SandboxFile } from './types.ts';

/** A write over a cap; the engine ends the run with limit FILES. */
export class FilesLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FilesLimitError';
  }
}

const utf8Bytes = (text: string): number => Buffer.byteLength(text, 'utf8');

export class Workspace {
  private readonly files = new Map<string, string>();
  private readonly original: ReadonlyMap<string, string>;
  private totalBytes = 0;

  /** `files` must already be normalised and within the caps (the pool checks requests). */
  constructor(
    files: SandboxFile[],
    private readonly limits: RunLimits,
  ) {
    for (const file of files) {
      this.files.set(file.path, file.content);
      this.totalBytes += utf8Bytes(file.content);
    }
    this.original = new Map(this.files);
  }

  has(path: string): boolean {
    return this.files.has(path);
  }

  /** @throws SandboxPathError for a bad path or a missing file. */
  read(rawPath: string): string {
    const path = normalizePath(rawPath);
    const content = this.files.get(path);
    if (content === undefined) throw new SandboxPathError(`ENOENT: no such file '${path}'`);
    return content;
  }

  /**
   * Creates or replaces a file.
   * @throws SandboxPathError for a bad path; FilesLimitError over a cap (nothing is written).
   */
  write(rawPath: string, content: string): void {
    const path = normalizePath(rawPath);
    const bytes = utf8Bytes(content);
    if (bytes > this.limits.fileBytes) {
      throw new FilesLimitError(
        `'${path}' would be ${bytes} bytes; a file may have at most ${this.limits.fileBytes}.`,
      );
    }
    const previous = this.files.get(path);
    if (previous === undefined && this.files.size >= this.limits.files) {
      throw new FilesLimitError(`The workspace may hold at most ${this.limits.files} files.`);
    }
    const total = this.totalBytes - (previous === undefined ? 0 : utf8Bytes(previous)) + bytes;
    if (total > this.limits.totalBytes) {
      throw new FilesLimitError(`The workspace may hold at most ${this.limits.totalBytes} bytes in all.`);
    }
    this.files.set(path, content);
    this.totalBytes = total;
  }

  /** @throws SandboxPathError for a bad path or a missing file. */
  delete(rawPath: string): void {
    const path = normalizePath(rawPath);
    const content = this.files.get(path);
    if (content === undefined) throw new SandboxPathError(`ENOENT: no such file '${path}'`);
    this.files.delete(path);
    this.totalBytes -= utf8Bytes(content);
  }

  /** Every file path, sorted. */
  list(): string[] {
    return [...this.files.keys()].sort();
  }

  /** The file `require(specifier)` from folder `fromDir` loads. @throws SandboxPathError when none. */
  resolveModule(fromDir: string, specifier: string): string {
    const base = resolveSpecifier(fromDir, specifier);
    const found = moduleCandidates(base).find((candidate) => this.files.has(candidate));
    if (found === undefined)
      throw new SandboxPathError(`Cannot find module '${specifier}' (looked for ${base}).`);
    return found;
  }

  /** Files created or changed since the start, and input files now gone. */
  changes(): { changed: SandboxFile[]; deleted: string[] } {
    const changed: SandboxFile[] = [];
    for (const [path, content] of this.files) {
      if (this.original.get(path) !== content) changed.push({ path, content });
    }
    const deleted = [...this.original.keys()].filter((path) => !this.files.has(path));
    changed.sort((a, b) => (a.path < b.path ? -1 : 1));
    return { changed, deleted: deleted.sort() };
  }
}
