import { createSocket } from 'node:dgram';
import dnsPacket from 'dns-packet';

/** A tiny authoritative DNS server on loopback UDP, for the fetcher's and verify_domain's tests. */
export interface DnsFixture {
  /** `host:port` for CAIRN_FETCH_DNS. */
  server: string;
  records: Map<string, { A?: string[]; AAAA?: string[]; TXT?: string[] }>;
  /** Questions asked, as `TYPE name`. */
  asked: string[];
  close(): Promise<void>;
}

export async function startDnsFixture(): Promise<DnsFixture> {
  const socket = createSocket('udp4');
  const records: DnsFixture['records'] = new Map();
  const asked: string[] = [];
  socket.on('message', (msg, rinfo) => {
    const query = dnsPacket.decode(msg);
    const answers: dnsPacket.Answer[] = [];
    for (const q of query.questions ?? []) {
      asked.push(`${q.type} ${q.name}`);
      const entry = records.get(q.name.toLowerCase());
      if (q.type === 'A')
        for (const data of entry?.A ?? []) answers.push({ type: 'A', name: q.name, ttl: 1, data });
      if (q.type === 'AAAA')
        for (const data of entry?.AAAA ?? []) answers.push({ type: 'AAAA', name: q.name, ttl: 1, data });
      if (q.type === 'TXT')
        for (const data of entry?.TXT ?? []) answers.push({ type: 'TXT', name: q.name, ttl: 1, data });
    }
    const known = (query.questions ?? []).some((q) => records.has(q.name.toLowerCase()));
    const reply = dnsPacket.encode({
      type: 'response',
      id: query.id,
      flags: dnsPacket.AUTHORITATIVE_ANSWER | (known ? 0 : 3), // rcode 3: NXDOMAIN
      questions: query.questions,
      answers,
    });
    socket.send(reply, rinfo.port, rinfo.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    records,
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
