/**
 * `tawqi webhook …`: the operator's side of webhooks (the "console" of spec 6.1). Endpoints added
 * here are live. Secrets are printed by `add` and `rotate-secret` only.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { nowSeconds } from '../clock.js';
import type { Config } from '../config.js';
import { OperatorError } from '../services/accounts.js';
import type { Db } from '../store/db.js';
import { getEndpoint, listEndpoints, type WebhookEndpoint } from '../store/webhooks.js';
import {
  changeEndpoint,
  checkEndpointUrl,
  createEndpoint,
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  deleteEndpoint,
  EndpointUrlProblem,
  MAX_ROTATION_OVERLAP_SECONDS,
  rotateEndpointSecret,
} from '../webhooks/endpoints.js';
import { EVENT_TYPES, isKnownEventType } from '../domain/eventTypes.js';
import { presentEndpoint } from '../presenters/webhooks.js';
import { systemResolver } from '../webhooks/reachability.js';
import { clock, command, emit, requireAccount, run, time, withStore, type JsonFlag } from './kit.js';

function parseEvents(text: string): string[] {
  const list = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  const unknown = list.filter((t) => !isKnownEventType(t));
  if (list.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(
      `Expected event types separated by commas, or * for all. Unknown: ${unknown.join(', ') || '(none given)'}. Known: ${EVENT_TYPES.join(', ')}.`,
    );
  }
  return list;
}

function parseOverlapHours(text: string): number {
  const hours = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || hours * 3600 > MAX_ROTATION_OVERLAP_SECONDS) {
    throw new InvalidArgumentError(`Expected hours from 0 to ${MAX_ROTATION_OVERLAP_SECONDS / 3600} (0 stops the old secret at once).`);
  }
  return hours;
}

async function requireEndpoint(db: Db, id: string): Promise<WebhookEndpoint> {
  const e = await getEndpoint(db, id);
  if (!e) throw new OperatorError(`No webhook endpoint ${id}`);
  return e;
}

async function checkUrl(config: Config, url: string): Promise<string> {
  try {
    return await checkEndpointUrl(url, config.TAWQI_WEBHOOK_ALLOW_PRIVATE, systemResolver);
  } catch (err) {
    if (err instanceof EndpointUrlProblem) throw new OperatorError(err.en);
    throw err;
  }
}

type EndpointView = ReturnType<typeof endpointView>;

function endpointView(e: WebhookEndpoint, now: number) {
  const overlap = e.previous_secret !== null && e.previous_secret_expires_at !== null && now < e.previous_secret_expires_at;
  return {
    ...presentEndpoint(e),
    created_via: e.created_via,
    account: e.account_id,
    previous_secret_signs_until: overlap ? e.previous_secret_expires_at : null,
  };
}

function endpointLines(e: EndpointView): string[] {
  return [
    `${e.id}  ${e.status}  ${e.livemode ? 'live' : 'test'}  ${e.url}`,
    `  account         ${e.account}`,
    `  events          ${e.enabled_events.join(', ')}`,
    `  description     ${e.description ?? '—'}`,
    `  created         ${time(e.created_at)} (${e.created_via})`,
    ...(e.previous_secret_signs_until !== null ? [`  old secret      still signs until ${time(e.previous_secret_signs_until)}`] : []),
  ];
}

async function webhookAdd(o: JsonFlag & { account: string; url: string; events: string[]; description?: string }): Promise<void> {
  const { endpoint, secret } = await withStore(async ({ store, config }) => {
    await requireAccount(store.db, o.account);
    const url = await checkUrl(config, o.url);
    return store.tx((trx) =>
      createEndpoint(trx, clock, {
        accountId: o.account,
        livemode: true,
        url,
        enabledEvents: o.events,
        description: o.description?.trim() || null,
        via: 'cli',
      }),
    );
  });
  const view = endpointView(endpoint, nowSeconds(clock));
  emit(o, { endpoint: view, secret }, () => [
    ...endpointLines(view),
    '',
    'The signing secret is shown this once; give it to the receiver now:',
    `  ${secret}`,
  ]);
}

async function webhookList(o: JsonFlag & { account: string }): Promise<void> {
  const now = nowSeconds(clock);
  const endpoints = await withStore(async ({ store }) => {
    await requireAccount(store.db, o.account);
    return (await listEndpoints(store.db, { accountId: o.account, limit: 1000 })).map((e) => endpointView(e, now));
  });
  emit(o, { endpoints }, () => (endpoints.length === 0 ? ['No webhook endpoints.'] : endpoints.flatMap(endpointLines)));
}

async function webhookShow(id: string, o: JsonFlag): Promise<void> {
  const e = await withStore(({ store }) => requireEndpoint(store.db, id));
  const view = endpointView(e, nowSeconds(clock));
  emit(o, { endpoint: view }, () => endpointLines(view));
}

async function webhookRotateSecret(id: string, o: JsonFlag & { overlapHours: number }): Promise<void> {
  const { endpoint, secret } = await withStore(({ store }) =>
    store.tx(async (trx) => rotateEndpointSecret(trx, clock, await requireEndpoint(trx, id), Math.round(o.overlapHours * 3600))),
  );
  const view = endpointView(endpoint, nowSeconds(clock));
  emit(o, { endpoint: view, secret }, () => [
    ...endpointLines(view),
    '',
    'The new signing secret is shown this once; give it to the receiver now:',
    `  ${secret}`,
    '',
    view.previous_secret_signs_until === null
      ? 'The old secret stopped signing now.'
      : `Deliveries carry a signature with each secret until ${time(view.previous_secret_signs_until)}.`,
  ]);
}

/** The action of `webhook disable` (true) or `webhook enable` (false). */
function webhookSetStatus(disabled: boolean): (id: string, o: JsonFlag) => Promise<void> {
  return async (id, o) => {
    const e = await withStore(({ store }) =>
      store.tx(async (trx) => changeEndpoint(trx, clock, await requireEndpoint(trx, id), { disabled })),
    );
    const view = endpointView(e, nowSeconds(clock));
    emit(o, { endpoint: view }, () => [disabled ? 'Disabled; its pending deliveries are canceled.' : 'Enabled.', ...endpointLines(view)]);
  };
}

async function webhookDelete(id: string, o: JsonFlag): Promise<void> {
  await withStore(({ store }) => store.tx(async (trx) => deleteEndpoint(trx, clock, await requireEndpoint(trx, id))));
  emit(o, { id, object: 'webhook_endpoint', deleted: true }, () => [`Deleted ${id}.`]);
}

export function webhookCommands(program: Command): void {
  const webhook = program.command('webhook').description('webhook endpoints added by the operator (live), secret rotation');

  command(webhook, 'add', 'register a live webhook endpoint; its whsec_ secret is shown once')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--url <https-url>', 'https address, publicly reachable (unless TAWQI_WEBHOOK_ALLOW_PRIVATE=true)')
    .requiredOption('--events <types>', 'event types separated by commas, or * for all', parseEvents)
    .option('--description <text>', 'a label')
    .action(run(webhookAdd));

  command(webhook, 'list', "list an account's webhook endpoints, live and test (never their secrets)")
    .requiredOption('--account <id>', 'account id')
    .action(run(webhookList));
  command(webhook, 'show <endpointId>', 'show a webhook endpoint (never its secret)').action(run(webhookShow));

  command(
    webhook,
    'rotate-secret <endpointId>',
    'issue a new signing secret; the old one keeps signing too (two v1= values) during the overlap',
  )
    .option(
      '--overlap-hours <hours>',
      'how long the old secret keeps signing (0 = stops at once)',
      parseOverlapHours,
      DEFAULT_ROTATION_OVERLAP_SECONDS / 3600,
    )
    .action(run(webhookRotateSecret));

  command(webhook, 'disable <endpointId>', 'stop deliveries to an endpoint; its pending deliveries are canceled').action(
    run(webhookSetStatus(true)),
  );
  command(webhook, 'enable <endpointId>', 'deliver to an endpoint again (canceled deliveries stay canceled; redeliver them)').action(
    run(webhookSetStatus(false)),
  );
  command(webhook, 'delete <endpointId>', 'delete an endpoint: pending deliveries canceled, secret erased').action(run(webhookDelete));
}
