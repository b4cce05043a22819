import { createServer } from 'node:http';
import Tawqi from '@tawqi/node';

// The endpoint's secret: the `secret` of tawqi.webhookEndpoints.create(…), shown once.
const secret = process.env.TAWQI_WEBHOOK_SECRET ?? '';

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      // Verify the raw bytes, before any JSON parsing: the signature covers them exactly.
      const event = Tawqi.webhooks.constructEvent(Buffer.concat(chunks), req.headers['svc-signature'], secret, 300);
      console.log('verified', event.id, event.type);
      res.writeHead(200).end(); // answer 2xx within 5 seconds; do slow work afterwards
    } catch (err) {
      console.log('refused', (err as Error).message);
      res.writeHead(400).end();
    }
  });
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => console.log('listening'));
