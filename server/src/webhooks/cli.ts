/**
 * `tawqi webhook …` and `tawqi events show`: the operator's side of webhooks (the "console" of
 * spec 6.1). Endpoints added here are live. Secrets are printed by `add` and `rotate-secret` only.
 * The shared CLI plumbing (store, output, errors) comes from cli.ts as a kit.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { nowSeconds, systemClock } from '../clock.js';
import type { Config } from '../config.js';
import { presentEvent } from '../presenters/events.js';
import { OperatorError } from '../services/accounts.js';
import { getAccount } from '../store/accounts.js';
import type { Store } from '../store/db.js';
import { findEvent } from '../store/events.js';
import { getEndpoint, listDeliveries, listEndpoints, type WebhookDelivery, type WebhookEndpoint } from '../store/webhooks.js';
import {
  changeEndpoint,
  checkEndpointUrl,
  createEndpoint,
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  deleteEndpoint,
  EndpointUrlProblem,
  MAX_ROTATION_OVERLAP_SECONDS,
  rotateEndpointSecret,
} from './endpoints.js';
import { EVENT_TYPES, isKnownEventType } from '../domain/eventTypes.js';
import { presentDelivery, presentEndpoint } from '../presenters/webhooks.js';
import { systemResolver } from './reachability.js';

export interface CliKit {
  command(parent: Command, nameAndArgs: string, description: string): Command;
  run<A extends unknown[]>(action: (...args: A) => Promise<void>): (...args: A) => Promise<void>;
  emit(opts: { json?: boolean }, data: object, text: () => string[]): void;
  withStore<T>(work: (ctx: { store: Store; config: Config }) => Promise<T>): Promise<T>;
  time(unix: number | null, none?: string): string;
}

interface JsonFlag {
  json?: boolean;
}

const clock = systemClock;
/** Deliveries shown by `events show`: an event has one per endpoint and redelivery. */
const SHOWN_DELIVERIES = 100;

function parseEvents(text: string): string[] {
  const list = [...new Set(text.split(',').map((s) => s.trim()).filter(Boolean))];
  const unknown = list.filter((t) => !isKnownEventType(t));
  if (list.length === 0 || unknown.length > 0) {
    throw new InvalidArgumentError(`Expected event types separated by commas, or * for all. Unknown: ${unknown.join(', ') || '(none given)'}. Known: ${EVENT_TYPES.join(', ')}.`);
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

async function requireEndpoint(store: Store, id: string): Promise<WebhookEndpoint> {
  const e = await getEndpoint(store.db, id);
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

function endpointView(e: WebhookEndpoint, now: number) {
  const overlap = e.previous_secret !== null && e.previous_secret_expires_at !== null && now < e.previous_secret_expires_at;
  return { ...presentEndpoint(e), created_via: e.created_via, account: e.account_id, previous_secret_signs_until: overlap ? e.previous_secret_expires_at : null };
}

export function webhookCommands(program: Command, kit: CliKit): void {
  const { command, run, emit, withStore, time } = kit;
  const lines = (e: ReturnType<typeof endpointView>) => [
    `${e.id}  ${e.status}  ${e.livemode ? 'live' : 'test'}  ${e.url}`,
    `  account         ${e.account}`,
    `  events          ${e.enabled_events.join(', ')}`,
    `  description     ${e.description ?? '—'}`,
    `  created         ${time(e.created_at)} (${e.created_via})`,
    ...(e.previous_secret_signs_until !== null ? [`  old secret      still signs until ${time(e.previous_secret_signs_until)}`] : []),
  ];

  const webhook = program.command('webhook').description('webhook endpoints added by the operator (live), secret rotation');

  command(webhook, 'add', 'register a live webhook endpoint; its whsec_ secret is shown once')
    .requiredOption('--account <id>', 'account id')
    .requiredOption('--url <https-url>', 'https address, publicly reachable (unless TAWQI_WEBHOOK_ALLOW_PRIVATE=true)')
    .requiredOption('--events <types>', 'event types separated by commas, or * for all', parseEvents)
    .option('--description <text>', 'a label')
    .action(
      run(async (o: JsonFlag & { account: string; url: string; events: string[]; description?: string }) => {
        const { endpoint, secret } = await withStore(async ({ store, config }) => {
          if (!(await getAccount(store.db, o.account))) throw new OperatorError(`No account ${o.account}`);
          const url = await checkUrl(config, o.url);
          return store.tx((trx) =>
            createEndpoint(trx, clock, { accountId: o.account, livemode: true, url, enabledEvents: o.events, description: o.description?.trim() || null, via: 'cli' }),
          );
        });
        const view = endpointView(endpoint, nowSeconds(clock));
        emit(o, { endpoint: view, secret }, () => [...lines(view), '', 'The signing secret is shown this once; give it to the receiver now:', `  ${secret}`]);
      }),
    );

  command(webhook, 'list', "list an account's webhook endpoints, live and test (never their secrets)")
    .requiredOption('--account <id>', 'account id')
    .action(
      run(async (o: JsonFlag & { account: string }) => {
        const now = nowSeconds(clock);
        const endpoints = await withStore(async ({ store }) => {
          if (!(await getAccount(store.db, o.account))) throw new OperatorError(`No account ${o.account}`);
          return (await listEndpoints(store.db, { accountId: o.account, limit: 1000 })).map((e) => endpointView(e, now));
        });
        emit(o, { endpoints }, () => (endpoints.length === 0 ? ['No webhook endpoints.'] : endpoints.flatMap(lines)));
      }),
    );

  command(webhook, 'show <endpointId>', 'show a webhook endpoint (never its secret)').action(
    run(async (id: string, o: JsonFlag) => {
      const e = await withStore(({ store }) => requireEndpoint(store, id));
      const view = endpointView(e, nowSeconds(clock));
      emit(o, { endpoint: view }, () => lines(view));
    }),
  );

  command(webhook, 'rotate-secret <endpointId>', 'issue a new signing secret; the old one keeps signing too (two v1= values) during the overlap')
    .option('--overlap-hours <hours>', 'how long the old secret keeps signing (0 = stops at once)', parseOverlapHours, DEFAULT_ROTATION_OVERLAP_SECONDS / 3600)
    .action(
      run(async (id: string, o: JsonFlag & { overlapHours: number }) => {
        const { endpoint, secret } = await withStore(({ store }) =>
          store.tx(async (trx) => {
            const e = await getEndpoint(trx, id);
            if (!e) throw new OperatorError(`No webhook endpoint ${id}`);
            return rotateEndpointSecret(trx, clock, e, Math.round(o.overlapHours * 3600));
          }),
        );
        const view = endpointView(endpoint, nowSeconds(clock));
        emit(o, { endpoint: view, secret }, () => [
          ...lines(view),
          '',
          'The new signing secret is shown this once; give it to the receiver now:',
          `  ${secret}`,
          '',
          view.previous_secret_signs_until === null ? 'The old secret stopped signing now.' : `Deliveries carry a signature with each secret until ${time(view.previous_secret_signs_until)}.`,
        ]);
      }),
    );

  const setStatus = (disabled: boolean) =>
    run(async (id: string, o: JsonFlag) => {
      const e = await withStore(({ store }) =>
        store.tx(async (trx) => {
          const current = await getEndpoint(trx, id);
          if (!current) throw new OperatorError(`No webhook endpoint ${id}`);
          return changeEndpoint(trx, clock, current, { disabled });
        }),
      );
      const view = endpointView(e, nowSeconds(clock));
      emit(o, { endpoint: view }, () => [disabled ? 'Disabled; its pending deliveries are canceled.' : 'Enabled.', ...lines(view)]);
    });
  command(webhook, 'disable <endpointId>', 'stop deliveries to an endpoint; its pending deliveries are canceled').action(setStatus(true));
  command(webhook, 'enable <endpointId>', 'deliver to an endpoint again (canceled deliveries stay canceled; redeliver them)').action(setStatus(false));

  command(webhook, 'delete <endpointId>', 'delete an endpoint: pending deliveries canceled, secret erased').action(
    run(async (id: string, o: JsonFlag) => {
      await withStore(({ store }) =>
        store.tx(async (trx) => {
          const e = await getEndpoint(trx, id);
          if (!e) throw new OperatorError(`No webhook endpoint ${id}`);
          await deleteEndpoint(trx, clock, e);
        }),
      );
      emit(o, { id, object: 'webhook_endpoint', deleted: true }, () => [`Deleted ${id}.`]);
    }),
  );
}

export function eventCommands(program: Command, kit: CliKit): void {
  const { command, run, emit, withStore, time } = kit;
  const events = program.command('events').description('the event log');

  command(events, 'show <eventId>', 'show an event (as webhooks carry it) and its webhook deliveries with every attempt').action(
    run(async (id: string, o: JsonFlag) => {
      const { event, deliveries } = await withStore(async ({ store }) => {
        const owner = await store.db.selectFrom('events').select(['account_id', 'livemode']).where('id', '=', id).executeTakeFirst();
        const record = owner ? await findEvent(store.db, owner.account_id, owner.livemode === 1, id) : undefined;
        if (!record) throw new OperatorError(`No event ${id}`);
        const rows = await listDeliveries(store.db, id, { limit: SHOWN_DELIVERIES });
        return { event: { ...presentEvent(record, { maskRequestInfo: false }), account: record.account_id }, deliveries: rows.slice(0, SHOWN_DELIVERIES).map(presentDelivery) };
      });
      emit(o, { event, deliveries }, () => [
        `${event.id}  ${event.type}  ${event.livemode ? 'live' : 'test'}  account ${event.account}  created ${time(event.created_at)}`,
        '',
        `Deliveries (${deliveries.length}):`,
        ...(deliveries.length === 0 ? ['  —'] : deliveries.flatMap(deliveryLines)),
        '',
        'Payload:',
        JSON.stringify({ ...event, account: undefined }, null, 2),
      ]);

      function deliveryLines(d: ReturnType<typeof presentDelivery>): string[] {
        const head = `  ${d.id}  ${d.endpoint}  ${d.status}${d.trigger === 'redeliver' ? ' (redelivery)' : ''}  ${d.attempt_count} attempt(s)`;
        const next = d.next_attempt_at !== null ? [`    next attempt   ${time(d.next_attempt_at)}`] : [];
        const attempts = (d.attempts as WebhookDelivery['attempts']).map(
          (a) =>
            `    #${a.attempt}  ${time(a.created_at)}  ${a.response_status ?? 'no answer'}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ''}${a.next_retry_at !== null ? `  retry ${time(a.next_retry_at)}` : ''}`,
        );
        return [head, ...attempts, ...next];
      }
    }),
  );
}
