/**
 * The headless core, assembled: modules discovered, tokens worker started, trust store opened,
 * WebSocket bound. Both shells (CLI, Electron) start it with their own UI.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { agentDataDir, loadConfig, socketLimits, type AgentConfig } from './config.js';
import { createLogger, type Logger } from './log.js';
import { discoverModules, type DiscoveryResult } from './pkcs11/modules.js';
import { TokenService } from './pkcs11/tokens.js';
import { AgentServer, type AgentServerOptions } from './server.js';
import { TrustStore } from './trust.js';
import type { AgentUi } from './ui.js';

export const AGENT_VERSION = '0.1.0';

export interface StartAgentOptions {
  ui: AgentUi;
  dataDir?: string;
  /** Settings over the ones in config.json. */
  config?: Partial<AgentConfig>;
  log?: Logger;
  now?: () => Date;
  fetchPreview?: AgentServerOptions['fetchPreview'];
}

export interface RunningAgent {
  port: number;
  dataDir: string;
  config: AgentConfig;
  discovery: DiscoveryResult;
  tokens: TokenService;
  trust: TrustStore;
  server: AgentServer;
  close(): Promise<void>;
}

export async function startAgent(options: StartAgentOptions): Promise<RunningAgent> {
  const dataDir = options.dataDir ?? agentDataDir();
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const config: AgentConfig = { ...loadConfig(dataDir), ...options.config };
  const log = options.log ?? createLogger(config.log_level);
  const discovery = discoverModules({ configured: config.modules, known: config.known_modules });
  for (const missing of discovery.missing) log.warn('configured PKCS#11 module not found', { path: missing });
  const tokens = await TokenService.start({ modules: discovery.modules, pollIntervalMs: config.poll_interval_ms });
  for (const m of tokens.modules()) {
    if (m.loaded) log.info('PKCS#11 module loaded', { id: m.id, path: m.path });
    else log.warn('PKCS#11 module failed to load', { id: m.id, path: m.path, error: m.error });
  }
  const trust = new TrustStore(dataDir);
  const server = new AgentServer({
    tokens,
    trust,
    ui: options.ui,
    ports: config.ports,
    agentVersion: AGENT_VERSION,
    log,
    usedTicketsFile: path.join(dataDir, 'used-tickets.json'),
    limits: socketLimits(config),
    ...(options.now ? { now: options.now } : {}),
    ...(options.fetchPreview ? { fetchPreview: options.fetchPreview } : {}),
  });
  let port: number;
  try {
    port = await server.listen();
  } catch (error) {
    await tokens.close();
    throw error;
  }
  return {
    port,
    dataDir,
    config,
    discovery,
    tokens,
    trust,
    server,
    async close() {
      await server.close();
      await tokens.close();
    },
  };
}
