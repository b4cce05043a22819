/**
 * A local peer of the npm registry's bulk advisory service, for the real `npm audit` pointed at it
 * with npm_config_registry. The protocol (npm's @npmcli/arborist audit-report.js, the client in
 * front): `POST /-/npm/v1/security/advisories/bulk` with a gzipped JSON map `{ name: [versions] }`;
 * the answer is keyed by package name, each advisory with id, url, title, severity,
 * vulnerable_versions and cwe — only for packages the request named. npm then reads each reported
 * package's packument (`GET /{name}`) to work out the vulnerable versions, which the peer serves with
 * the versions it was asked about. `refuse` answers the bulk endpoint 405 with `Allow: GET,HEAD`, as
 * the registry reachable from the test machine does.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

export interface PeerAdvisory {
  id: number;
  url: string;
  title: string;
  severity: 'low' | 'moderate' | 'high' | 'critical';
  vulnerable_versions: string;
  cwe: string[];
}

export interface NpmAdvisoryPeer {
  /** The registry URL for npm (ends with /). */
  registry: string;
  /** What the next bulk questions are answered with, per package name; refuse: 405. */
  advisories: Record<string, PeerAdvisory[]>;
  refuse: boolean;
  /** The packages and versions of the last bulk question. */
  lastQuestion: Record<string, string[]> | null;
  close(): Promise<void>;
}

export async function startNpmAdvisoryPeer(): Promise<NpmAdvisoryPeer> {
  const asked = new Map<string, Set<string>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://peer');
      if (url.pathname === '/-/npm/v1/security/advisories/bulk') {
        if (req.method !== 'POST' || peer.refuse) return void res.writeHead(405, { allow: 'GET,HEAD', 'content-length': 0 }).end();
        const raw = Buffer.concat(chunks);
        const body = JSON.parse((req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw) : raw).toString('utf8')) as Record<
          string,
          string[]
        >;
        peer.lastQuestion = body;
        const answer: Record<string, PeerAdvisory[]> = {};
        for (const [name, versions] of Object.entries(body)) {
          asked.set(name, new Set(versions));
          if (peer.advisories[name]) answer[name] = peer.advisories[name];
        }
        return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
      }
      const name = decodeURIComponent(url.pathname.slice(1));
      const versions = [...(asked.get(name) ?? [])];
      if (req.method !== 'GET' || versions.length === 0)
        return void res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not found"}');
      const packument = {
        name,
        'dist-tags': { latest: versions[versions.length - 1] },
        versions: Object.fromEntries(
          versions.map((v) => [v, { name, version: v, dist: { tarball: `${peer.registry}${name}/-/${name}-${v}.tgz` } }]),
        ),
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(packument));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const peer: NpmAdvisoryPeer = {
    registry: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    advisories: {},
    refuse: false,
    lastQuestion: null,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  return peer;
}
