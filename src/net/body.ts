import zlib from 'node:zlib';
import { NetRefusal } from './refusal.ts';

/**
 * Receiving and decoding response bodies under a size cap. Every stage (the raw bytes and
 * each layer of content decoding) is held to the same cap, so neither a large body nor a small
 * compression bomb, stacked or not, can make Cairn hold more than the cap in memory.
 */

/** Layers of content encoding unwrapped at most ("gzip, gzip" is two); more are refused. */
export const MAX_ENCODING_LAYERS = 2;

type Decoder = (raw: Buffer, opts: zlib.ZlibOptions & zlib.BrotliOptions) => Buffer;

const DECODERS: Record<string, Decoder> = {
  gzip: zlib.gunzipSync,
  'x-gzip': zlib.gunzipSync,
  deflate: zlib.inflateSync,
  br: zlib.brotliDecompressSync,
};

/**
 * Reads a body stream, refusing it (RESPONSE_TOO_LARGE) past `maxBytes`; with `truncate` it
 * keeps the first `maxBytes` instead and stops reading, for files with a parse limit.
 */
export async function readCapped(
  body: AsyncIterable<Buffer> & { destroy(): void },
  maxBytes: number,
  truncate = false,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    if (size + chunk.length > maxBytes) {
      body.destroy();
      if (truncate) {
        chunks.push(chunk.subarray(0, maxBytes - size));
        return Buffer.concat(chunks);
      }
      throw new NetRefusal('RESPONSE_TOO_LARGE', `The response is larger than ${maxBytes} bytes.`, {
        max_bytes: maxBytes,
      });
    }
    size += chunk.length;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** The encodings in the order they were applied, identity dropped, lower-cased. */
function layersOf(contentEncoding: string | undefined): string[] {
  return (contentEncoding ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter((s) => s !== '' && s !== 'identity');
}

/**
 * Undoes the Content-Encoding of a received body, last-applied layer first, each layer capped
 * at `maxBytes` of output. Stored raw bytes are decoded later the same way. `partial` accepts a
 * body cut short on purpose (a truncated read) instead of calling it corrupt.
 */
export function decodeLayers(
  raw: Buffer,
  contentEncoding: string | undefined,
  maxBytes: number,
  partial: boolean,
): Buffer {
  const layers = layersOf(contentEncoding);
  if (layers.length > MAX_ENCODING_LAYERS) {
    throw new NetRefusal(
      'UNSUPPORTED_ENCODING',
      `The body is encoded ${layers.length} times over; at most ${MAX_ENCODING_LAYERS} layers are decoded.`,
      { content_encoding: contentEncoding },
    );
  }
  let body = raw;
  for (const layer of layers.reverse()) {
    const decoder = DECODERS[layer];
    if (!decoder) {
      throw new NetRefusal('UNSUPPORTED_ENCODING', `The content encoding "${layer}" is not supported.`, {
        content_encoding: contentEncoding,
      });
    }
    const flush =
      layer === 'br'
        ? { finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }
        : { finishFlush: zlib.constants.Z_SYNC_FLUSH };
    try {
      body = decoder(body, { maxOutputLength: maxBytes, ...(partial ? flush : {}) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new NetRefusal('RESPONSE_TOO_LARGE', `The decoded response is larger than ${maxBytes} bytes.`, {
          max_bytes: maxBytes,
        });
      }
      // The bytes arrived; they are just not valid `layer` data. Asking again will not help.
      throw new NetRefusal('UNDECODABLE_BODY', `The ${layer} body could not be decoded.`, {
        content_encoding: contentEncoding,
      });
    }
  }
  return body;
}

/**
 * Decodes a complete body by its Content-Encoding header value (`gzip`, `br`, `gzip, gzip`…),
 * never producing more than `maxBytes` at any layer. Throws NetRefusal RESPONSE_TOO_LARGE past
 * the cap, UNSUPPORTED_ENCODING for unknown or too many layers and UNDECODABLE_BODY for a body
 * that is not valid data of its encoding.
 */
export function decodeBody(raw: Buffer, contentEncoding: string | undefined, maxBytes: number): Buffer {
  return decodeLayers(raw, contentEncoding, maxBytes, false);
}

/** Response headers as one string each (repeated headers joined with ", "). */
export function flattenHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers))
    if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
