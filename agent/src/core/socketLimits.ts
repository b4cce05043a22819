/**
 * Bounds on what one local client can hold of the agent's socket. Any process on the machine and
 * any web page in the user's browser can connect to 127.0.0.1: without these, a client that opens
 * many connections, trickles its upgrade headers or a frame byte by byte, or stops answering keeps
 * sockets (and up to a frame's buffer each) forever. Tests set them small to drive them quickly.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

export interface AgentSocketLimits {
  /** TCP connections held at once (upgraded or not); more are dropped as they arrive. */
  maxConnections: number;
  /** From the TCP accept to a completed WebSocket upgrade; a slower client is disconnected. */
  handshakeTimeoutMs: number;
  /** How often every WebSocket is pinged; one that has not answered the previous ping is closed. */
  heartbeatIntervalMs: number;
}

/** A page keeps one connection (a few with several tabs); a browser answers pings by itself. */
export const DEFAULT_SOCKET_LIMITS: AgentSocketLimits = {
  maxConnections: 32,
  handshakeTimeoutMs: 10_000,
  heartbeatIntervalMs: 30_000,
};

/**
 * Caps the connections of `server` and gives each one `handshakeTimeoutMs` to become a WebSocket.
 * Returns `upgraded(socket)`, to call when the WebSocket is accepted (its deadline is lifted).
 * Node's own headersTimeout is checked only every 30 s and not once a plain request was answered
 * (a kept-alive socket that never upgrades), hence a deadline per socket.
 */
export function guardConnections(server: Server, limits: AgentSocketLimits, onDrop: () => void): { upgraded(socket: Socket): void } {
  server.maxConnections = limits.maxConnections;
  server.on('drop', onDrop);
  const deadlines = new WeakMap<Socket, NodeJS.Timeout>();
  server.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), limits.handshakeTimeoutMs);
    deadlines.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  return {
    upgraded(socket) {
      clearTimeout(deadlines.get(socket));
      deadlines.delete(socket);
    },
  };
}

/**
 * Pings every tracked WebSocket each interval and terminates the ones that did not answer the
 * previous ping: a dead peer, or a client stuck in the middle of a frame (a pong cannot come before
 * the frame it is trickling ends).
 */
export class Heartbeat {
  private readonly alive = new Map<WebSocket, boolean>();
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs: number) {
    this.timer = setInterval(() => this.beat(), intervalMs);
    this.timer.unref();
  }

  track(ws: WebSocket): void {
    this.alive.set(ws, true);
    ws.on('pong', () => this.alive.has(ws) && this.alive.set(ws, true));
    ws.once('close', () => this.alive.delete(ws));
  }

  private beat(): void {
    for (const [ws, answered] of this.alive) {
      if (!answered) {
        this.alive.delete(ws);
        ws.terminate();
        continue;
      }
      this.alive.set(ws, false);
      ws.ping();
    }
  }

  stop(): void {
    clearInterval(this.timer);
    this.alive.clear();
  }
}
