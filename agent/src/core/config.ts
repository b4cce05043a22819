/**
 * The agent's settings: `config.json` in the agent's data directory, every field optional.
 *
 * Data directory: $TAWQI_AGENT_HOME, else
 *   Linux   $XDG_CONFIG_HOME/tawqi-agent (~/.config/tawqi-agent)
 *   macOS   ~/Library/Application Support/Tawqi Agent
 *   Windows %APPDATA%\Tawqi Agent
 * It holds config.json and trusted-servers.json.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AGENT_PORTS } from '@tawqi/shared';
import { z } from 'zod';
import { DEFAULT_SOCKET_LIMITS, type AgentSocketLimits } from './socketLimits.js';

export const AgentConfigSchema = z
  .object({
    /** PKCS#11 modules to load before the built-in vendor list: paths, or { path, id?, rescan? }. */
    modules: z
      .array(
        z.union([
          z.string().min(1),
          z
            .object({ path: z.string().min(1), id: z.string().min(1).optional(), rescan: z.enum(['slot-list', 'reinitialize']).optional() })
            .strict(),
        ]),
      )
      .default([]),
    /** Also look for the built-in list of vendor modules (agent/README.md). */
    known_modules: z.boolean().default(true),
    /** Ports tried in order on 127.0.0.1; the first free one is used. */
    ports: z
      .array(z.number().int().min(0).max(65535))
      .min(1)
      .default([...AGENT_PORTS]),
    /** How often tokens are polled for insertion and removal, in ms (0: never). */
    poll_interval_ms: z.number().int().min(0).max(60_000).default(1500),
    log_level: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
    /** Local connections held at once; more are dropped (socketLimits.ts). */
    max_connections: z.number().int().min(1).max(1024).default(DEFAULT_SOCKET_LIMITS.maxConnections),
    /** ms from connect to a completed WebSocket upgrade; slower clients are disconnected. */
    handshake_timeout_ms: z.number().int().min(100).max(120_000).default(DEFAULT_SOCKET_LIMITS.handshakeTimeoutMs),
    /** ms between pings; a connection that missed the previous pong is closed. */
    heartbeat_interval_ms: z.number().int().min(100).max(300_000).default(DEFAULT_SOCKET_LIMITS.heartbeatIntervalMs),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

export function agentDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  home = os.homedir(),
): string {
  if (env.TAWQI_AGENT_HOME) return path.resolve(env.TAWQI_AGENT_HOME);
  if (platform === 'win32') return path.join(env.APPDATA ?? path.join(home, 'AppData', 'Roaming'), 'Tawqi Agent');
  if (platform === 'darwin') return path.join(home, 'Library', 'Application Support', 'Tawqi Agent');
  return path.join(env.XDG_CONFIG_HOME ?? path.join(home, '.config'), 'tawqi-agent');
}

/** Reads `config.json` from the data directory (defaults when absent); a bad setting throws naming it. */
export function loadConfig(dataDir: string): AgentConfig {
  const file = path.join(dataDir, 'config.json');
  let raw: unknown = {};
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`${file}: ${(error as Error).message}`);
  }
  const parsed = AgentConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new Error(`${file}: setting "${issue?.path.join('.') || '(root)'}": ${issue?.message ?? 'invalid'}`);
  }
  return parsed.data;
}

/** The socket limits a configuration sets (AgentServer's `limits`). */
export function socketLimits(config: AgentConfig): AgentSocketLimits {
  return {
    maxConnections: config.max_connections,
    handshakeTimeoutMs: config.handshake_timeout_ms,
    heartbeatIntervalMs: config.heartbeat_interval_ms,
  };
}
