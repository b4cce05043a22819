/**
 * `tawqi listen --forward-to <url>`: webhooks on a laptop, like `stripe listen`. It follows the
 * account's new events (follow.ts polls GET /events) and POSTs each to the local address exactly as
 * a real delivery would be sent — the same body, the same headers, signed by the server's own
 * signing function — with a `whsec_…` secret it prints. One line per event with the local answer.
 */
import { createHmac } from 'node:crypto';
import { InvalidArgumentError, type Command } from 'commander';
import { EVENT_TYPES } from '../../domain/eventTypes.js';
import { base62 } from '../../ids.js';
import { deliveryHeaders, SECRET_PREFIX } from '../../webhooks/signing.js';
import { TawqiAuthenticationError, TawqiPermissionError, TawqiRateLimitError } from '@tawqi/node';
import { command, run } from '../kit.js';
import { causeOf } from './client.js';
import { EventFollower, type EventEnvelope } from './follow.js';
import { connect, describeFailure, remoteOptions, type RemoteFlags } from './options.js';

interface ListenFlags extends RemoteFlags {
  forwardTo?: string;
  events?: string[];
  interval: number;
  printSecret?: boolean;
  json?: boolean;
}

/** A receiver must answer within this long (spec 6.1), as for real deliveries. */
const FORWARD_TIMEOUT_MS = 5000;

/**
 * The session's signing secret, derived from the key: the same for every `listen` with that key (the
 * local app keeps one setting, as with `stripe listen`), unknown to anyone without the key, and
 * revealing nothing of it. 256 bits, base62, like an endpoint's secret.
 */
export function listenSecret(apiKey: string): string {
  return SECRET_PREFIX + base62(createHmac('sha256', apiKey).update('tawqi listen: webhook signing secret').digest(), 43);
}

function parseEvents(text: string): string[] {
  const types = text
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  const known = new Set<string>(EVENT_TYPES);
  for (const t of types) {
    const prefix = t.endsWith('.*') ? t.slice(0, -1) : null;
    if (t !== '*' && !known.has(t) && !(prefix && EVENT_TYPES.some((k) => k.startsWith(prefix)))) {
      throw new InvalidArgumentError(`Unknown event type ${t} (types of spec 6.3, a prefix like signer.*, or *).`);
    }
  }
  if (types.length === 0) throw new InvalidArgumentError('Give at least one event type.');
  return types;
}

function parseInterval(text: string): number {
  const seconds = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || seconds < 0.1 || seconds > 3600)
    throw new InvalidArgumentError('Expected seconds between 0.1 and 3600.');
  return seconds;
}

function parseForwardUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError('Not an address such as http://localhost:3000/hooks.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new InvalidArgumentError('Use an http or https address.');
  return url.toString();
}

function wanted(types: readonly string[] | undefined, type: string): boolean {
  if (!types) return true;
  return types.some((t) => t === '*' || t === type || (t.endsWith('.*') && type.startsWith(t.slice(0, -1))));
}

interface Forwarded {
  status: number | null;
  error: string | null;
}

/** POST one event as a delivery would be sent: the envelope as GET /events returned it, signed now. */
async function forward(url: string, secret: string, version: string, event: EventEnvelope): Promise<Forwarded> {
  const body = JSON.stringify(event);
  const headers = deliveryHeaders([secret], Math.floor(Date.now() / 1000), body, version);
  try {
    const res = await fetch(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS) });
    await res.body?.cancel();
    return { status: res.status, error: null };
  } catch (err) {
    return { status: null, error: causeOf(err) };
  }
}

const stamp = () =>
  new Date()
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '');

function report(flags: ListenFlags, url: string, event: EventEnvelope, f: Forwarded): void {
  if (flags.json) {
    const line = { time: Math.floor(Date.now() / 1000), id: event.id, type: event.type, status: f.status, error: f.error };
    process.stdout.write(JSON.stringify(line) + '\n');
    return;
  }
  const answer = f.status === null ? `error: ${f.error}` : `[${f.status}]`;
  process.stdout.write(`${stamp()}  ${event.type} [${event.id}] → ${answer} POST ${url}\n`);
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Poll until SIGINT or SIGTERM; a failed poll is reported and tried again, a refused key ends it.
 * `announce` runs once the signals are handled, so a ^C right after the ready line is a clean stop.
 */
async function follow(flags: ListenFlags, follower: EventFollower, url: string, secret: string, announce: () => void): Promise<void> {
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    announce();
    while (!stop.signal.aborted) {
      let wait = flags.interval;
      try {
        for (const event of await follower.poll(stop.signal)) {
          if (wanted(flags.events, event.type)) report(flags, url, event, await forward(url, secret, follower.version, event));
        }
      } catch (err) {
        if (stop.signal.aborted) break;
        if (err instanceof TawqiAuthenticationError || err instanceof TawqiPermissionError) throw new Error(describeFailure(err));
        // The rate limit is the account's, shared with its applications: give way for as long as the server asks.
        if (err instanceof TawqiRateLimitError && err.retryAfter !== null) wait = Math.max(wait, err.retryAfter);
        process.stderr.write(`tawqi: ${describeFailure(err)}; trying again in ${wait} s\n`);
      }
      await pause(wait * 1000, stop.signal);
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function listen(flags: ListenFlags): Promise<void> {
  if (!flags.printSecret && !flags.forwardTo) throw new Error('Give --forward-to <url> (or --print-secret).');
  // No retries inside a poll: the loop itself tries again, waiting as long as a 429 asks.
  const { tawqi, info } = await connect(flags, 0);
  const secret = listenSecret(flags.apiKey!.trim());
  if (flags.printSecret) {
    process.stdout.write(flags.json ? JSON.stringify({ secret }) + '\n' : `${secret}\n`);
    return;
  }
  const url = flags.forwardTo!;
  const follower = new EventFollower(tawqi);
  await follower.start();
  const mode = info.livemode ? 'live' : 'test';
  await follow(flags, follower, url, secret, () => {
    if (flags.json) {
      const ready = { ready: true, secret, account: info.account.id, livemode: info.livemode, forward_to: url };
      process.stdout.write(JSON.stringify(ready) + '\n');
      return;
    }
    process.stdout.write(`Ready! Forwarding ${mode} events of ${info.account.name} (${info.account.id}) to ${url}\n`);
    process.stdout.write(`Your webhook signing secret is ${secret} (^C to quit)\n`);
  });
}

export function listenCommand(program: Command): void {
  remoteOptions(command(program, 'listen', "Forward the account's new events to a local address, signed as real deliveries are"))
    .option('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/hooks', parseForwardUrl)
    .option('--events <types>', 'only these event types, comma-separated (a prefix like signer.* works)', parseEvents)
    .option('--interval <seconds>', 'how often to ask the server for new events (each ask counts toward the rate limit)', parseInterval, 2)
    .option('--print-secret', 'print the webhook signing secret and exit')
    .action(run((flags: ListenFlags) => listen(flags)));
}
