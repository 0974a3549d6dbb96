/** Turns untrusted bytes into a JSON value, refusing what the validators must never see. */
import { MAX_SBOM_BYTES, MAX_SBOM_DEPTH, type SbomError } from './types.ts';

export type Parsed = { ok: true; value: unknown } | { ok: false; error: SbomError };

const refuse = (message: string): Parsed => ({ ok: false, error: { path: '', message } });

/**
 * Depth of the deepest container, walked with an explicit stack: a recursive walk would itself
 * overflow on the documents this check exists to stop. Stops early once past `limit`.
 */
export function jsonDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (node === null || typeof node !== 'object') continue;
    if (depth > deepest) deepest = depth;
    if (deepest > limit) return deepest;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return deepest;
}

export function parseSbomBytes(bytes: Uint8Array): Parsed {
  if (bytes.byteLength > MAX_SBOM_BYTES) return refuse(`size: the file is over ${MAX_SBOM_BYTES} bytes`);
  let source: string;
  try {
    // fatal: a file that is not UTF-8 is not JSON (RFC 8259 §8.1); the decoder drops a leading BOM.
    source = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return refuse('json: the file is not UTF-8 text');
  }
  let value: unknown;
  try {
    value = JSON.parse(source);
  } catch (err) {
    const detail = err instanceof Error ? err.message.slice(0, 200) : 'parse error';
    return refuse(`json: the file is not JSON (${detail})`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return refuse('type: an SBOM must be a JSON object');
  }
  if (jsonDepth(value, MAX_SBOM_DEPTH) > MAX_SBOM_DEPTH) {
    return refuse(`depth: the document nests deeper than ${MAX_SBOM_DEPTH} levels`);
  }
  return { ok: true, value };
}
