/**
 * Three HTTPS webhook receivers in one process (separate from the server): each answers 200 as
 * soon as a body has fully arrived and records (receiver, event id, receipt time). Receipt time is
 * `performance.timeOrigin + performance.now()`: wall-clock milliseconds with sub-ms resolution, on
 * the same system clock the server process stamps commits with. Receipts go to the driver over IPC
 * in batches. Prints `{"ports":[…]}` once listening.
 *
 * argv: <cert.pem> <key.pem>
 */
import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';

const [certFile, keyFile] = process.argv.slice(2);
const cert = readFileSync(certFile!, 'utf8');
const key = readFileSync(keyFile!, 'utf8');
const RECEIVERS = 3;

/** [receiver index, event id, receipt ms] */
let batch: [number, string, number][] = [];
let bad = 0;

function flush(): void {
  if (batch.length === 0) return;
  process.send!({ receipts: batch, bad });
  batch = [];
}
setInterval(flush, 50).unref();

const ports: number[] = [];
for (let i = 0; i < RECEIVERS; i++) {
  const server = https.createServer({ cert, key, minVersion: 'TLSv1.2' }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      try {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: string };
        if (typeof body.id !== 'string' || !req.headers['svc-signature']) throw new Error('not a delivery');
        batch.push([i, body.id, at]);
      } catch {
        bad++;
      }
      res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  ports.push((server.address() as AddressInfo).port);
}
process.on('message', (m: { cmd?: string }) => {
  if (m.cmd === 'flush') {
    flush();
    process.send!({ flushed: true, bad });
  }
});
process.on('disconnect', () => process.exit(0));
console.log(JSON.stringify({ ports }));
