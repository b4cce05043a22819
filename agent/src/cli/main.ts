#!/usr/bin/env node
/**
 * `tawqi-agent`: the headless shell.
 *   serve                  run the agent; consent and PIN are asked in this terminal
 *   tokens                 modules, tokens (with PIN state) and certificates (offered or why not)
 *   trust add <origin>     fetch the server's key, show its fingerprint, trust it after confirmation
 *   trust list | remove <origin>
 */
import { Command } from 'commander';
import { AGENT_VERSION, startAgent } from '../core/agent.js';
import { agentDataDir, loadConfig, type AgentConfig } from '../core/config.js';
import { createLogger } from '../core/log.js';
import { describePinState } from '../core/pkcs11/flags.js';
import { discoverModules } from '../core/pkcs11/modules.js';
import { TokenService } from '../core/pkcs11/tokens.js';
import { fetchServerKey, formatFingerprint, TrustStore } from '../core/trust.js';
import { TerminalInput, TerminalUi } from './terminal.js';

const out = (text: string): void => void process.stdout.write(text);
const err = (text: string): void => void process.stderr.write(text);

interface CommonOptions {
  dataDir?: string;
  module?: string[];
  knownModules: boolean;
}

function common(command: Command): Command {
  return command
    .option(
      '--data-dir <dir>',
      'the agent data directory (config.json, trusted servers); default: $TAWQI_AGENT_HOME or the OS config folder',
    )
    .option('--module <path...>', 'PKCS#11 module(s) to load before the configured and built-in ones')
    .option('--no-known-modules', 'do not look for the built-in list of vendor modules');
}

function settings(options: CommonOptions): { dataDir: string; config: AgentConfig } {
  const dataDir = options.dataDir ?? agentDataDir();
  const config = loadConfig(dataDir);
  return {
    dataDir,
    config: {
      ...config,
      modules: [...(options.module ?? []), ...config.modules],
      known_modules: config.known_modules && options.knownModules,
    },
  };
}

const program = new Command('tawqi-agent').description('Tawqi local signing agent').version(AGENT_VERSION);

common(program.command('serve'))
  .description('run the agent on 127.0.0.1; consent and PIN are asked in this terminal')
  .option('--port <port...>', 'ports to try in order (default 38611 38612 38613 38614)')
  .action(async (options: CommonOptions & { port?: string[] }) => {
    const { dataDir, config } = settings(options);
    const ui = new TerminalUi({ input: new TerminalInput(process.stdin) });
    const agent = await startAgent({
      ui,
      dataDir,
      config: { ...config, ...(options.port ? { ports: options.port.map(Number) } : {}) },
      log: createLogger(config.log_level),
    });
    out(`tawqi-agent listening on ws://127.0.0.1:${agent.port}\n`);
    const stop = (): void => {
      void agent.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });

common(program.command('tokens'))
  .description('list PKCS#11 modules, tokens (with PIN state) and their certificates')
  .option('--json', 'machine-readable output')
  .action(async (options: CommonOptions & { json?: boolean }) => {
    const { config } = settings(options);
    const discovery = discoverModules({ configured: config.modules, known: config.known_modules });
    const tokens = await TokenService.start({ modules: discovery.modules, pollIntervalMs: 0 });
    try {
      const { tokens: list, entries, modules } = await tokens.certificates(new Date());
      if (options.json) {
        out(
          JSON.stringify(
            {
              modules,
              missing: discovery.missing,
              tokens: list,
              certificates: entries.map((e) => ({
                ...e.info,
                offered: e.offered,
                reasons: e.reasons,
                certificate: undefined,
                chain: e.info.chain.length,
              })),
            },
            null,
            2,
          ) + '\n',
        );
        return;
      }
      out('PKCS#11 modules:\n');
      for (const m of modules)
        out(`  ${m.loaded ? 'loaded ' : 'FAILED '} ${m.id.padEnd(10)} ${m.path}${m.error ? `  (${m.error})` : ''}\n`);
      for (const p of discovery.missing) out(`  missing  ${p} (configured, not found)\n`);
      if (modules.length === 0) out('  none found: add a module path to config.json (see agent/README.md)\n');
      out(list.length === 0 ? 'No token plugged in.\n' : 'Tokens:\n');
      for (const t of list) {
        out(`  ${t.label} — ${t.manufacturer} ${t.model} #${t.serial} [${t.slot}]\n    PIN: ${describePinState(t.pin)}\n`);
        for (const e of entries.filter((x) => x.slot === t.slot)) {
          const status = e.offered ? 'offered for signing' : `not offered: ${e.reasons.join(', ')}`;
          out(
            `    • ${e.info.name} (${e.info.key_type.toUpperCase()} ${e.info.curve ?? e.info.key_bits}; ${e.info.key_usage.join(', ') || 'no key usage'})\n`,
          );
          out(
            `      valid ${new Date(e.info.not_before * 1000).toISOString().slice(0, 10)} → ${new Date(e.info.not_after * 1000).toISOString().slice(0, 10)}; ${status}\n`,
          );
          out(`      SHA-256 ${e.info.cert_sha256}\n`);
        }
      }
    } finally {
      await tokens.close();
    }
  });

const trust = program.command('trust').description('servers whose pages may ask this agent to sign');

trust
  .command('add <origin>')
  .description("fetch the server's key from <origin>/pki/evidence-key.pem, show its fingerprint and trust it once you confirm")
  .option('--data-dir <dir>', 'the agent data directory')
  .option('--fingerprint <hex>', 'confirm without a question: the fingerprint you got from the server operator (must match)')
  .action(async (origin: string, options: { dataDir?: string; fingerprint?: string }) => {
    const store = new TrustStore(options.dataDir ?? agentDataDir());
    const key = await fetchServerKey(origin);
    out(`Server:      ${key.origin}\nFingerprint: ${formatFingerprint(key.fingerprint)}\n`);
    out('Compare the fingerprint with the one your server operator published before trusting it.\n');
    if (store.get(key.origin))
      out(`(already trusted with fingerprint ${formatFingerprint(store.get(key.origin)?.fingerprint ?? '')}; confirming replaces it)\n`);
    let confirmed: boolean;
    if (options.fingerprint !== undefined) {
      confirmed = options.fingerprint.replace(/[\s:]/g, '').toLowerCase() === key.fingerprint;
      if (!confirmed) err('The fingerprint given does not match the server key. Not trusted.\n');
    } else {
      out('Trust this server? Type yes to trust it: ');
      const answer = await new TerminalInput(process.stdin).question();
      confirmed = answer?.toLowerCase() === 'yes';
      if (!confirmed) err('Not trusted.\n');
    }
    if (!confirmed) {
      process.exitCode = 1;
      return;
    }
    store.add(key);
    out(`Trusted ${key.origin}.\n`);
  });

trust
  .command('list')
  .description('servers you trust, with their key fingerprints')
  .option('--data-dir <dir>', 'the agent data directory')
  .option('--json', 'machine-readable output')
  .action((options: { dataDir?: string; json?: boolean }) => {
    const servers = new TrustStore(options.dataDir ?? agentDataDir()).list();
    if (options.json) {
      out(
        JSON.stringify(
          servers.map(({ key_pem: _key, ...rest }) => rest),
          null,
          2,
        ) + '\n',
      );
      return;
    }
    if (servers.length === 0) out('No trusted servers. Add one with: tawqi-agent trust add https://sign.example.com\n');
    for (const s of servers)
      out(`${s.origin}\n  fingerprint ${formatFingerprint(s.fingerprint)}\n  trusted since ${new Date(s.added_at * 1000).toISOString()}\n`);
  });

trust
  .command('remove <origin>')
  .description('stop trusting a server (its pages can no longer reach the agent)')
  .option('--data-dir <dir>', 'the agent data directory')
  .action((origin: string, options: { dataDir?: string }) => {
    const removed = new TrustStore(options.dataDir ?? agentDataDir()).remove(origin);
    if (removed) out(`Removed ${origin}.\n`);
    else {
      err(`${origin} was not trusted.\n`);
      process.exitCode = 1;
    }
  });

program.parseAsync(process.argv).catch((error: unknown) => {
  err(`tawqi-agent: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
