/**
 * A real nginx (Debian's package) in front of test server processes: deploy/nginx/tawqi.conf with
 * its {{…}} values filled in, TLS with the test CA's certificate for 127.0.0.1, round-robin over
 * the given upstream ports. Runs in the foreground as a child process; `stop()` ends it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from './postgres.js';

const TEMPLATE = fileURLToPath(new URL('../../deploy/nginx/tawqi.conf', import.meta.url));
const NGINX = '/usr/sbin/nginx';
const READY_MS = 15_000;

export interface Nginx {
  /** https://127.0.0.1:<port> */
  url: string;
  port: number;
  /** The configuration as run (the template with its values). */
  config: string;
  stop(): Promise<void>;
}

/** Whether something accepts TCP connections on 127.0.0.1:port. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startNginx(opts: { upstreamPorts: number[]; certPem: string; keyPem: string }): Promise<Nginx> {
  const prefix = mkdtempSync(path.join(tmpdir(), 'tawqi-nginx-'));
  for (const dir of ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi']) mkdirSync(path.join(prefix, dir));
  writeFileSync(path.join(prefix, 'cert.pem'), opts.certPem);
  writeFileSync(path.join(prefix, 'key.pem'), opts.keyPem, { mode: 0o600 });
  const port = await freePort();
  const upstreams = opts.upstreamPorts.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=5s;`).join('\n');
  const values: Record<string, string> = {
    PREFIX: prefix,
    LISTEN: `127.0.0.1:${port}`,
    CERT: path.join(prefix, 'cert.pem'),
    KEY: path.join(prefix, 'key.pem'),
    UPSTREAMS: upstreams,
  };
  const config = readFileSync(TEMPLATE, 'utf8').replace(/\{\{(\w+)\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`deploy/nginx/tawqi.conf: no value for {{${name}}}`);
    return value;
  });
  // Run as root (tests in CI): the worker keeps root's user so it can read the temp files.
  const asRoot = process.getuid?.() === 0 ? 'user root;\n' : '';
  writeFileSync(path.join(prefix, 'nginx.conf'), asRoot + config);
  const proc: ChildProcess = spawn(NGINX, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf'), '-g', 'daemon off;'], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const deadline = Date.now() + READY_MS;
  while (!(await accepts(port))) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      proc.kill('SIGKILL');
      rmSync(prefix, { recursive: true, force: true });
      throw new Error(`nginx did not start: ${stderr || readFileSafe(path.join(prefix, 'error.log'))}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `https://127.0.0.1:${port}`,
    port,
    config,
    stop: async () => {
      if (proc.exitCode === null) proc.kill('SIGQUIT');
      await exited;
      rmSync(prefix, { recursive: true, force: true });
    },
  };
}

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
