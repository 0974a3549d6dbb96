import { createHash, randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/**
 * Id prefixes (SPEC's agt_, task_, evd_, pol_, and ours for the rest), declared by the area that
 * makes each kind: a `declare module '…/kernel/ids.ts'` block adds `<prefix>: '<area>'` to this
 * interface, so the kernel names none, and two areas claiming one prefix do not compile.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled in by the areas.
export interface IdPrefixes {}
export type IdPrefix = keyof IdPrefixes & string;

/**
 * Random bytes for ULIDs, drawn from a buffer filled 4 KiB at a time: ulid's own generator asks
 * the system for one byte per character (16 calls per new millisecond), which showed in profiles
 * of busy servers. Each byte / 256 is uniform over the 32 symbols, as ulid expects.
 */
const randomPool = new Uint8Array(4096);
let randomAt = randomPool.length;
function pooledRandom(): number {
  if (randomAt === randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  return randomPool[randomAt++]! / 256;
}

const nextUlid = monotonicFactory(pooledRandom);

/** A new id that sorts by creation time: `<prefix>_<ULID>`. */
export function newId(prefix: IdPrefix, now: Date): string {
  return `${prefix}_${nextUlid(now.getTime())}`;
}

/** Token prefixes of DESIGN.md convention 4. */
export type TokenKind = 'acc' | 'ref' | 'dev' | 'boot' | 'prj' | 'own';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

/** RFC 4648 base32, lowercase, unpadded. */
export function base32(bytes: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

/** A new secret token `cd_<kind>_` + 32 random bytes in base32 (52 characters). Shown once, stored hashed. */
export function newToken(kind: TokenKind): string {
  return `cd_${kind}_${base32(randomBytes(32))}`;
}

/** SHA-256 hex of a secret: what the database keeps instead of the secret. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Random opaque identifier for non-secret handles such as MCP session ids. */
export function newOpaqueId(): string {
  return base32(randomBytes(20));
}
