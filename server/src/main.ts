import { ConfigError, loadConfig } from './config.js';
import { startServer } from './server.js';

/** `npm start`: read settings, start the API, print the operator keys on the very first start. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`tawqi: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  let running;
  try {
    running = await startServer(config);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`tawqi: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  // Signal handlers first, then the announcement: a supervisor that signals as soon as it reads the
  // listening line gets a drain, not a default kill.
  // SIGTERM or SIGINT drains (RunningServer.drain) and exits 0; past TAWQI_SHUTDOWN_TIMEOUT_MS, or at a
  // second signal, the process exits 1 at once (webhook leases left are released at the next start).
  const log = running.ctx.log;
  let draining = false;
  const stop = (signal: NodeJS.Signals) => {
    if (draining) {
      log.error({ signal }, 'second signal while draining: exiting now');
      process.exit(1);
    }
    draining = true;
    const timeoutMs = config.TAWQI_SHUTDOWN_TIMEOUT_MS;
    log.info({ signal, timeout_ms: timeoutMs }, 'draining: refusing new connections, finishing requests and jobs in flight');
    setTimeout(() => {
      log.error({ timeout_ms: timeoutMs }, 'drain did not finish in time: exiting');
      process.exit(1);
    }, timeoutMs).unref();
    running.drain().then(
      () => {
        log.info('drained: exiting');
        process.exit(0);
      },
      (err: unknown) => {
        log.error({ err }, 'drain failed: exiting');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  const api = `${running.url}/api/v1`;
  if (running.operator) {
    const { account, keys } = running.operator;
    process.stdout.write(
      [
        '',
        `Tawqi: first start — created the operator account ${account.id} (Business plan, company verified).`,
        'Its keys are shown this once; store them now (only their hashes are kept):',
        `  secret live       ${keys.secret_live}`,
        `  publishable live  ${keys.publishable_live}`,
        `  secret test       ${keys.secret_test}`,
        `  publishable test  ${keys.publishable_test}`,
        '',
      ].join('\n') + '\n',
    );
  }
  process.stdout.write(`Tawqi API listening at ${api}\n`);
}

void main();
