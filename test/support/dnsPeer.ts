/**
 * A real DNS server on 127.0.0.1 (UDP) for tests: answers A, AAAA and CNAME from a table, NXDOMAIN
 * for names it does not know, SERVFAIL for names marked so. Point a Resolver at it with
 * TAWQI_DNS_SERVERS=127.0.0.1:<port>; nothing leaves the machine.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIPv4 } from 'node:net';

export interface DnsRecords {
  a?: string[];
  aaaa?: string[];
  cname?: string;
  servfail?: boolean;
}

const TYPE = { A: 1, CNAME: 5, AAAA: 28 } as const;

function encodeName(name: string): Buffer {
  const parts = name.replace(/\.$/, '').split('.').filter(Boolean);
  return Buffer.concat([...parts.map((p) => Buffer.concat([Buffer.from([p.length]), Buffer.from(p, 'ascii')])), Buffer.from([0])]);
}

function readName(msg: Buffer, offset: number): { name: string; end: number } {
  const labels: string[] = [];
  let i = offset;
  while (msg[i]! !== 0) {
    labels.push(msg.subarray(i + 1, i + 1 + msg[i]!).toString('ascii'));
    i += msg[i]! + 1;
  }
  return { name: labels.join('.').toLowerCase(), end: i + 1 };
}

function ipv6Bytes(ip: string): Buffer {
  const [head, tail = ''] = ip.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return Buffer.from(groups.flatMap((g) => [parseInt(g, 16) >> 8, parseInt(g, 16) & 0xff]));
}

function record(name: string, type: number, rdata: Buffer): Buffer {
  const fixed = Buffer.alloc(10);
  fixed.writeUInt16BE(type, 0);
  fixed.writeUInt16BE(1, 2);
  fixed.writeUInt32BE(60, 4);
  fixed.writeUInt16BE(rdata.length, 8);
  return Buffer.concat([encodeName(name), fixed, rdata]);
}

export class DnsPeer {
  private constructor(
    private readonly socket: Socket,
    readonly port: number,
    readonly records: Map<string, DnsRecords>,
  ) {}

  static async start(records: Record<string, DnsRecords> = {}): Promise<DnsPeer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const peer = new DnsPeer(socket, socket.address().port, new Map(Object.entries(records)));
    socket.on('message', (msg, rinfo) => socket.send(peer.answer(msg), rinfo.port, rinfo.address));
    return peer;
  }

  get server(): string {
    return `127.0.0.1:${this.port}`;
  }

  private answers(name: string, qtype: number): Buffer[] | null {
    const r = this.records.get(name);
    if (!r) return null;
    if (r.cname) {
      const chained = qtype === TYPE.CNAME ? [] : (this.answers(r.cname.toLowerCase(), qtype) ?? []);
      return [record(name, TYPE.CNAME, encodeName(r.cname)), ...chained];
    }
    if (qtype === TYPE.A)
      return (r.a ?? []).filter((ip) => isIPv4(ip)).map((ip) => record(name, TYPE.A, Buffer.from(ip.split('.').map(Number))));
    if (qtype === TYPE.AAAA) return (r.aaaa ?? []).map((ip) => record(name, TYPE.AAAA, ipv6Bytes(ip)));
    return [];
  }

  private answer(msg: Buffer): Buffer {
    const { name, end } = readName(msg, 12);
    const qtype = msg.readUInt16BE(end);
    const question = msg.subarray(12, end + 4);
    const found = this.records.get(name)?.servfail ? 'servfail' : this.answers(name, qtype);
    const rcode = found === 'servfail' ? 2 : found === null ? 3 : 0;
    const answers = Array.isArray(found) ? found : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(msg.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8180 | rcode, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    return Buffer.concat([header, question, ...answers]);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
