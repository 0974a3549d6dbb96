import type { LookupFunction } from 'node:net';
import tls from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Agent, type Dispatcher, request } from 'undici';
import { NetRefusal } from './refusal.ts';

export interface PinnedRequest {
  url: URL;
  /** The checked address to connect to, whatever the host name resolves to by now. */
  address: string;
  accept: string;
  userAgent: string;
  /** The whole read's deadline, shared by every hop. */
  signal: AbortSignal;
  timeoutMs: number;
  extraCa?: string | undefined;
  /** Operator-configured `x-*` headers (checked by the caller); undefined for page reads. */
  serviceHeaders?: Record<string, string> | undefined;
}

/**
 * One GET to an already-checked address. The connection's DNS lookup is replaced by the
 * checked answer, so a name that rebinds between check and connect changes nothing; TLS
 * still verifies the certificate against the URL's host name.
 */
export async function pinnedGet(req: PinnedRequest): Promise<Dispatcher.ResponseData> {
  const address = req.address;
  const family = ipaddr.parse(address).kind() === 'ipv6' ? 6 : 4;
  const lookup: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: object[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const dispatcher = new Agent({
    connect: {
      lookup,
      timeout: req.timeoutMs,
      ...(req.extraCa ? { ca: [...tls.rootCertificates, req.extraCa] } : {}),
    },
    headersTimeout: req.timeoutMs,
    bodyTimeout: req.timeoutMs,
  });
  try {
    const res = await request(req.url, {
      method: 'GET',
      dispatcher,
      signal: req.signal,
      // Only these headers, ever: no cookies, no Authorization, no Referer.
      headers: {
        ...req.serviceHeaders,
        'user-agent': req.userAgent,
        accept: req.accept,
        'accept-encoding': 'gzip, deflate, br',
      },
    });
    // The connection goes with the body however the body ends: read to the end ('end'), broken
    // off ('error'; undici 7 also reports a body destroyed unread so), or any way that emits
    // only 'close', such as a stream destroyed without an error. Released once, whichever comes first.
    let released = false;
    const release = (broken: boolean) => {
      if (released) return;
      released = true;
      void (broken ? dispatcher.destroy() : dispatcher.close()).catch(() => {});
    };
    res.body.once('end', () => release(false));
    res.body.once('error', () => release(true));
    res.body.once('close', () => release(!res.body.readableEnded));
    return res;
  } catch (err) {
    void dispatcher.destroy().catch(() => {});
    if (req.signal.aborted) throw new NetRefusal('TIMEOUT', `No answer within ${req.timeoutMs} ms.`);
    throw new NetRefusal('CONNECTION_FAILED', `Could not connect to ${req.url.host}.`, {
      address,
      cause: (err as Error).message,
    });
  }
}
