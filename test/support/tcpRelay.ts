/**
 * A TCP relay on 127.0.0.1 in front of a real server, for network failures that happen for real:
 * `dropAnswer` forwards the next request and cuts its connection when the answer starts (the
 * server did the work, the client sees a broken connection), and `hold` accepts connections but
 * forwards nothing until `open()` (a peer that is slow to answer: a request waiting on it stays in
 * progress on the server).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export class TcpRelay {
  /** Connections accepted so far. */
  connections = 0;
  /** Cut the answer of the next this many connections. */
  dropAnswer = 0;
  private held: (() => void)[] = [];
  private gateOpen = true;
  private connected: (() => boolean)[] = [];
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    private readonly server: net.Server,
    readonly port: number,
  ) {}

  static async start(targetPort: number): Promise<TcpRelay> {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const relay = new TcpRelay(server, (server.address() as AddressInfo).port);
    server.on('connection', (client) => relay.accept(client, targetPort));
    return relay;
  }

  /** Forward nothing until open(): new connections wait (already relayed ones go on). */
  hold(): void {
    this.gateOpen = false;
  }

  open(): void {
    this.gateOpen = true;
    for (const go of this.held.splice(0)) go();
  }

  /** Resolves once `n` connections have been accepted in all. */
  waitForConnections(n: number): Promise<void> {
    if (this.connections >= n) return Promise.resolve();
    return new Promise((resolve) =>
      this.connected.push(() => {
        if (this.connections < n) return false;
        resolve();
        return true;
      }),
    );
  }

  private accept(client: net.Socket, targetPort: number): void {
    this.connections++;
    this.sockets.add(client);
    client.on('close', () => this.sockets.delete(client));
    client.on('error', () => client.destroy());
    this.connected = this.connected.filter((check) => !check());
    const relay = () => {
      if (client.destroyed) return;
      const upstream = net.connect(targetPort, '127.0.0.1');
      this.sockets.add(upstream);
      upstream.on('close', () => (this.sockets.delete(upstream), client.destroy()));
      upstream.on('error', () => client.destroy());
      client.on('close', () => upstream.destroy());
      // Decided per request, not per connection: a kept-alive connection carries later requests too.
      let dropNext = false;
      client.on('data', (chunk: Buffer) => {
        if (!dropNext && this.dropAnswer > 0) {
          this.dropAnswer--;
          dropNext = true;
        }
        upstream.write(chunk);
      });
      upstream.on('data', (chunk: Buffer) => {
        if (dropNext) {
          client.destroy();
          upstream.destroy();
        } else client.write(chunk);
      });
    };
    if (this.gateOpen) relay();
    else this.held.push(relay);
  }

  async close(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
