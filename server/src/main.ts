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
  const stop = () => {
    void running.close().then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

void main();
