import type { Language } from '@tawqi/shared';
import type { NextFunction, Request, Response } from 'express';
import { BlockList, isIP, type Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { canonicalIp } from '../../domain/keys.js';
import { deprecationHeader, findVersion } from '../../domain/versions.js';
import { randomToken } from '../../ids.js';
import { ApiError } from '../../errors.js';
import type { AppContext } from '../context.js';
import { sendError } from '../envelope.js';

/** Language rules (spec part 7): ?lang wins, then the /en/api/v1 prefix, then Accept-Language; Arabic by default. */
export function resolveLanguage(req: Request): Language {
  const q = req.query.lang;
  if (q === 'en' || q === 'ar') return q;
  if (req.originalUrl.startsWith('/en/')) return 'en';
  const accept = req.headers['accept-language'];
  if (typeof accept === 'string' && accept.trim().toLowerCase().startsWith('en')) return 'en';
  return 'ar';
}

export function buildBlockList(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split('/') as [string, string | undefined];
    const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (prefix === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(prefix), type);
  }
  return list;
}

export function inList(list: BlockList, ip: string): boolean {
  const family = isIP(ip);
  return family !== 0 && list.check(ip, family === 4 ? 'ipv4' : 'ipv6');
}

const LOOPBACK = buildBlockList(['127.0.0.0/8', '::1']);

interface Peer {
  address: string;
  trusted: boolean;
  loopback: boolean;
}

/**
 * First in the chain for every path: request id, language, client address and scheme (believing
 * X-Forwarded-* only from TAWQI_TRUSTED_PROXIES), HTTPS enforcement, and the Svc-Version header.
 */
export function requestContext(ctx: AppContext) {
  const trusted = buildBlockList(ctx.config.TAWQI_TRUSTED_PROXIES);
  // What depends on the connection alone is worked out once per connection (keep-alive carries many requests).
  const peers = new WeakMap<Socket, Peer>();
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = 'req_' + randomToken(96);
    let p = peers.get(req.socket);
    if (p === undefined) {
      const address = canonicalIp(req.socket.remoteAddress ?? '');
      p = { address, trusted: inList(trusted, address), loopback: inList(LOOPBACK, address) };
      peers.set(req.socket, p);
    }
    const peer = p.address;
    let clientIp = peer;
    let secure = Boolean((req.socket as TLSSocket).encrypted);
    // A request forwarded by a trusted proxy is judged by the scheme it reports, not by the proxy's
    // own (often loopback) address: the loopback exemption is for direct development requests only.
    let forwarded = false;
    if (p.trusted) {
      const chain = String(req.headers['x-forwarded-for'] ?? '')
        .split(',')
        .map((s) => canonicalIp(s.trim()))
        .filter((s) => isIP(s) !== 0);
      // The right-most address not belonging to a trusted proxy is the client.
      while (chain.length > 0 && inList(trusted, chain[chain.length - 1]!)) chain.pop();
      if (chain.length > 0) clientIp = chain[chain.length - 1]!;
      const proto = String(req.headers['x-forwarded-proto'] ?? '')
        .split(',')[0]!
        .trim()
        .toLowerCase();
      secure = proto === 'https';
      forwarded = proto !== '';
    }
    req.tawqi = {
      requestId,
      lang: resolveLanguage(req),
      version: ctx.config.TAWQI_DEFAULT_VERSION,
      clientIp,
      secure,
      startedAt: performance.now(),
    };
    res.setHeader('Svc-Request-Id', requestId);
    res.setHeader('Svc-Version', ctx.config.TAWQI_DEFAULT_VERSION);

    if (!secure && (forwarded || !p.loopback) && !ctx.config.TAWQI_ALLOW_INSECURE_HTTP) {
      return sendError(req, res, new ApiError('https_required'));
    }
    const asked = req.headers['svc-version'];
    if (asked !== undefined) {
      const v = typeof asked === 'string' ? findVersion(asked.trim()) : undefined;
      if (!v) return sendError(req, res, new ApiError('invalid_version', 'Svc-Version'));
      applyVersion(req, res, v.date);
    }
    next();
  };
}

export function applyVersion(req: Request, res: Response, date: string): void {
  const v = findVersion(date);
  if (!v) return;
  req.tawqi.version = v.date;
  res.setHeader('Svc-Version', v.date);
  const dep = deprecationHeader(v);
  if (dep) res.setHeader('Svc-Deprecation', dep);
  else res.removeHeader('Svc-Deprecation');
}
