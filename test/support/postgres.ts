/**
 * A throwaway PostgreSQL cluster for tests and benchmarks: `initdb` into a temp folder, a free port
 * on 127.0.0.1, `fsync=off` by default (a test database need not survive a power cut; benchmarks
 * pass their own `settings`), started with `pg_ctl` and removed on stop. Run as the `postgres` user when the tests run as root (PostgreSQL refuses to
 * run as root). Debian's binaries live in /usr/lib/postgresql/<major>/bin; TAWQI_PG_BIN overrides.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface ThrowawayPostgres {
  /** postgres://postgres@127.0.0.1:<port>/postgres — the maintenance database. */
  url: string;
  port: number;
  /** A URL for another database of the same cluster. */
  urlFor(database: string): string;
  /** The cluster's data directory (its postmaster.pid names the server process). */
  dataDir: string;
  /** Create a fresh empty database and return its URL. */
  createDatabase(name: string): string;
  stop(): void;
}

export function postgresBinDir(): string {
  if (process.env.TAWQI_PG_BIN) return process.env.TAWQI_PG_BIN;
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root)
    ? readdirSync(root)
        .filter((d) => /^\d+$/.test(d))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const major = majors.find((m) => existsSync(path.join(root, m, 'bin', 'initdb')));
  if (!major) throw new Error('PostgreSQL is not installed: apt-get install -y postgresql (test/ci.sh does this)');
  return path.join(root, major, 'bin');
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Server settings of a test cluster: nothing is synced to disk. */
const TEST_SETTINGS: Readonly<Record<string, string>> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export interface ThrowawayOptions {
  /** Server settings (`-c name=value`) over the test ones, e.g. {fsync: 'on'} for a benchmark. */
  settings?: Record<string, string>;
}

/** Start a fresh cluster; the caller must stop() it (the folder is removed then). */
export async function startThrowawayPostgres(options: ThrowawayOptions = {}): Promise<ThrowawayPostgres> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(path.join(tmpdir(), 'tawqi-pg-'));
  const dataDir = path.join(dir, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
    chmodSync(dir, 0o700);
  }
  const run = (tool: string, args: string[]): void => {
    const command = asRoot ? 'runuser' : path.join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', path.join(bin, tool), ...args] : args;
    const result = spawnSync(command, argv, { encoding: 'utf8', cwd: dir });
    if (result.status !== 0) throw new Error(`${tool} failed (${result.status}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--encoding=UTF8', '--locale=C.UTF-8', '--no-sync']);
  const port = await freePort();
  const settings = { listen_addresses: '127.0.0.1', max_connections: '200', ...TEST_SETTINGS, ...options.settings };
  for (const [name, value] of Object.entries(settings))
    if (!/^[a-z_]+$/.test(name) || !/^[\w.:-]+$/.test(value)) throw new Error(`bad PostgreSQL setting ${name}=${value}`);
  const serverOptions = [`-p ${port}`, `-k ${dir}`, ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`)].join(' ');
  run('pg_ctl', ['-D', dataDir, '-o', serverOptions, '-l', path.join(dir, 'postgres.log'), '-w', '-t', '60', 'start']);
  const urlFor = (database: string): string => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    url: urlFor('postgres'),
    port,
    urlFor,
    dataDir,
    createDatabase(name) {
      if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`bad database name ${name}`);
      run('psql', ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-d', 'postgres', '-qAt', '-c', `CREATE DATABASE ${name}`]);
      return urlFor(name);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
