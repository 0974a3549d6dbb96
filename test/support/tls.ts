import { generateKeyPairSync, type KeyObject, randomBytes, sign, X509Certificate } from 'node:crypto';

/**
 * A self-signed certificate for one host name (CN and subjectAltName DNS, P-256, SHA-256, valid
 * for a day), written out in DER by hand: Node can sign but has no API that makes a certificate.
 * It is its own CA, so a client trusts it by taking the certificate as `ca`.
 */
export function selfSignedCertificate(host: string): { key: string; cert: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cert = certificate(host, privateKey, publicKey.export({ type: 'spki', format: 'der' }));
  const pem = `-----BEGIN CERTIFICATE-----\n${cert
    .toString('base64')
    .replace(/.{64}/g, '$&\n')
    .replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  new X509Certificate(pem); // throws if the encoding is wrong
  return { key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), cert: pem };
}

function certificate(host: string, privateKey: KeyObject, spki: Buffer): Buffer {
  const ecdsaWithSha256 = seq(oid('1.2.840.10045.4.3.2'));
  const name = seq(set(seq(oid('2.5.4.3'), tlv(0x0c, Buffer.from(host)))));
  const now = Date.now();
  const serial = randomBytes(8);
  // Positive and minimal in DER: a first byte of 0x00 before one below 0x80 is "illegal padding"
  // (about one certificate in 256 failed so before).
  serial[0] = (serial[0]! & 0x3f) | 0x40;
  const tbs = seq(
    tlv(0xa0, int(Buffer.from([2]))), // v3
    int(serial),
    ecdsaWithSha256,
    name,
    seq(utcTime(new Date(now - 3_600_000)), utcTime(new Date(now + 86_400_000))),
    name,
    spki,
    tlv(0xa3, seq(seq(oid('2.5.29.17'), tlv(0x04, seq(tlv(0x82, Buffer.from(host))))))),
  );
  const signature = sign('sha256', tbs, privateKey);
  return seq(tbs, ecdsaWithSha256, tlv(0x03, Buffer.concat([Buffer.from([0]), signature])));
}

function tlv(tag: number, content: Buffer): Buffer {
  const n = content.length;
  let length: Buffer;
  if (n < 0x80) length = Buffer.from([n]);
  else {
    const bytes: number[] = [];
    for (let v = n; v > 0; v >>= 8) bytes.unshift(v & 0xff);
    length = Buffer.from([0x80 | bytes.length, ...bytes]);
  }
  return Buffer.concat([Buffer.from([tag]), length, content]);
}

const seq = (...items: Buffer[]) => tlv(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => tlv(0x31, Buffer.concat(items));
const int = (value: Buffer) => tlv(0x02, value[0]! & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);

function oid(dotted: string): Buffer {
  const [a, b, ...rest] = dotted.split('.').map(Number);
  const bytes = [a! * 40 + b!];
  for (const part of rest) {
    const chunk: number[] = [];
    let v = part;
    do {
      chunk.unshift((v & 0x7f) | (chunk.length ? 0x80 : 0));
      v >>= 7;
    } while (v > 0);
    bytes.push(...chunk);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function utcTime(d: Date): Buffer {
  const text = d
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d{3}Z$/, 'Z')
    .slice(2);
  return tlv(0x17, Buffer.from(text));
}
