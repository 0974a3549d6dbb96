import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Authenticated encryption (AES-256-GCM) of small values the server must keep for a short
 * while but never in clear, such as the answer to a duplicate refresh. The key is derived from
 * the server secret, so every replica can open what another sealed.
 */

function keyFrom(secret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'cairn', 'cairn-seal-v1', 32));
}

export function sealJson(secret: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyFrom(secret), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url')).join('.');
}

/** Opens a sealed value; throws when it was tampered with or sealed under another secret. */
export function unsealJson<T>(secret: string, sealed: string): T {
  const [iv, tag, body] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
  if (!iv || !tag || !body) throw new Error('malformed sealed value');
  const decipher = createDecipheriv('aes-256-gcm', keyFrom(secret), iv);
  decipher.setAuthTag(tag);
  return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as T;
}
