import type { SMTPServerDataStream, SMTPServerSession } from 'smtp-server';
import type { SmtpInboundMail } from './receiver-options.ts';

/**
 * One message as the receiver takes it in: the DATA stream read to its end within the size
 * limit (past it only counted), and the session's envelope made into the mail handed over.
 */

export function inboundMail(session: SMTPServerSession, raw: Buffer): SmtpInboundMail {
  const { mailFrom, rcptTo } = session.envelope;
  return {
    via: 'SMTP',
    recipients: [...new Set(rcptTo.map((r) => r.address.toLowerCase()))],
    envelopeFrom: mailFrom ? mailFrom.address || null : null,
    raw,
    processed: null,
    size: raw.length,
    providerDeliveryId: null,
    remote: session.remoteAddress || null,
  };
}

type BoundedRead =
  | { aborted: true }
  | { aborted: false; oversized: true; size: number }
  | { aborted: false; oversized: false; raw: Buffer; size: number };

/** Reads the DATA stream to its end, keeping at most maxBytes: past the limit it only counts. */
export function readBounded(stream: SMTPServerDataStream, maxBytes: number): Promise<BoundedRead> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (read: BoundedRead) => {
      if (settled) return;
      settled = true;
      resolve(read);
    };
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => {
      if (size > maxBytes || stream.sizeExceeded) settle({ aborted: false, oversized: true, size });
      else settle({ aborted: false, oversized: false, raw: Buffer.concat(chunks, size), size });
    });
    // The client went away mid-message: smtp-server destroys the stream (with an error when
    // someone listens for one), and there is nobody left to answer.
    stream.once('error', () => settle({ aborted: true }));
    stream.once('close', () => settle({ aborted: true }));
  });
}
