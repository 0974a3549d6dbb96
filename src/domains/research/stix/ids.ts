/**
 * Deterministic STIX identifiers: UUIDv5 (RFC 9562: SHA-1 of namespace + name) under the
 * namespace STIX 2.1 reserves for them, so exporting the same records again yields the same ids
 * and a consumer updates its objects instead of collecting duplicates.
 */
import { createHash } from 'node:crypto';

/** STIX 2.1 section 2.9: the namespace for UUIDv5 identifiers of STIX objects. */
export const STIX_NAMESPACE = '00abedb4-aa42-466c-9c01-fed23315a9b7';

/** UUIDv5 of `name` (UTF-8) under `namespace`; node:crypto only, no uuid dependency. */
export function uuidV5(namespace: string, name: string): string {
  const ns = Buffer.from(namespace.replace(/-/g, ''), 'hex');
  if (ns.length !== 16) throw new Error('namespace must be a UUID');
  const bytes = createHash('sha1').update(ns).update(name, 'utf8').digest().subarray(0, 16);
  bytes[6] = (bytes[6]! & 0x0f) | 0x50; // version 5
  bytes[8] = (bytes[8]! & 0x3f) | 0x80; // RFC 4122 variant
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** `<type>--<uuidv5("<type>:<key>")>`: the type is part of the name so two types never share a UUID. */
export function stixId(type: string, key: string): string {
  return `${type}--${uuidV5(STIX_NAMESPACE, `${type}:${key}`)}`;
}

/** A short stable key for free text (an unknown, a contradiction) whose list position may change. */
export function textKey(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 32);
}
