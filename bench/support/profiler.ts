/**
 * A CPU profile of exactly one measured run of a benchmark server: the driver asks the server
 * process (a child started with an IPC channel) to start V8's sampling profiler just before the run
 * and to stop it just after, so the server's start-up, migrations, set-up and warm-up are not in
 * it. The server writes the profile (a .cpuprofile, which Chrome DevTools and `bench/support/profile.ts`
 * read) with its frames mapped back to the TypeScript sources (tsx compiles each file to other
 * lines; its source maps say where a function is).
 *
 *   server: serveProfiler()            (when process.send exists: started with an IPC channel)
 *   driver: await startProfile(child); …run…; await stopProfile(child, file)
 */
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { findSourceMap } from 'node:module';
import type { CpuProfile } from './profile.js';

/** V8's default sampling interval (as `node --cpu-prof`): one sample per millisecond. */
export const DEFAULT_INTERVAL_US = 1000;
const REPLY_TIMEOUT_MS = 60_000;

type Message =
  | { profile: 'start'; intervalUs: number }
  | { profile: 'stop'; file: string }
  | { profile: 'started' }
  | { profile: 'written'; file: string }
  | { profile: 'failed'; error: string };

/** A frame's place in its TypeScript source instead of in tsx's output, where a source map says so. */
function mapToSources(profile: CpuProfile): CpuProfile {
  for (const { callFrame: frame } of profile.nodes) {
    if (!frame.url.startsWith('file://')) continue;
    const entry = findSourceMap(frame.url)?.findEntry(frame.lineNumber, frame.columnNumber ?? 0);
    if (!entry || !('originalLine' in entry)) continue;
    frame.lineNumber = entry.originalLine;
    frame.columnNumber = entry.originalColumn;
    if (entry.originalSource.startsWith('file://')) frame.url = entry.originalSource;
  }
  return profile;
}

/** In the server process: answer the driver's start and stop messages (one profile at a time). */
export function serveProfiler(): void {
  if (!process.send) return;
  let session: Session | null = null;
  const reply = (m: Message): void => void process.send!(m);
  process.on('message', (m: Message) => {
    void (async () => {
      try {
        if (m.profile === 'start') {
          session = new Session();
          session.connect();
          await session.post('Profiler.enable');
          await session.post('Profiler.setSamplingInterval', { interval: m.intervalUs });
          await session.post('Profiler.start');
          reply({ profile: 'started' });
        } else if (m.profile === 'stop' && session) {
          const { profile } = await session.post('Profiler.stop');
          session.disconnect();
          session = null;
          writeFileSync(m.file, JSON.stringify(mapToSources(profile as unknown as CpuProfile)));
          reply({ profile: 'written', file: m.file });
        }
      } catch (err) {
        reply({ profile: 'failed', error: err instanceof Error ? err.message : String(err) });
      }
    })();
  });
}

/** Send one message to the child and wait for its answer. */
function ask(child: ChildProcess, message: Message, answer: Message['profile']): Promise<Message> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => done(new Error(`no '${answer}' from the server within ${REPLY_TIMEOUT_MS} ms`)), REPLY_TIMEOUT_MS);
    const onMessage = (m: Message): void => {
      if (m.profile === 'failed') done(new Error(`profiler: ${m.error}`));
      else if (m.profile === answer) done(null, m);
    };
    const done = (err: Error | null, m?: Message): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      if (err) reject(err);
      else resolve(m!);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

/** In the driver: start the child's profiler; resolves once it samples. */
export async function startProfile(child: ChildProcess, intervalUs = DEFAULT_INTERVAL_US): Promise<void> {
  await ask(child, { profile: 'start', intervalUs }, 'started');
}

/** In the driver: stop the child's profiler; resolves once it has written `file`. */
export async function stopProfile(child: ChildProcess, file: string): Promise<void> {
  await ask(child, { profile: 'stop', file }, 'written');
}
