/** `tawqi events show`: an event as webhooks carry it, and its webhook deliveries with every attempt. */
import type { Command } from 'commander';
import { presentEvent } from '../presenters/events.js';
import { OperatorError } from '../services/accounts.js';
import { findEvent } from '../store/events.js';
import { listDeliveries, type WebhookDelivery } from '../store/webhooks.js';
import { presentDelivery } from '../presenters/webhooks.js';
import { command, emit, run, time, withStore, type JsonFlag } from './kit.js';

/** Deliveries shown by `events show`: an event has one per endpoint and redelivery. */
const SHOWN_DELIVERIES = 100;

/** The excerpt on one terminal line: line ends shown as ⏎, cut at EXCERPT_LINE characters (the JSON output has it whole). */
const EXCERPT_LINE = 100;
function oneLine(text: string): string {
  const flat = text.replace(/\n/g, '⏎').replace(/\t/g, ' ');
  return flat.length > EXCERPT_LINE ? `${flat.slice(0, EXCERPT_LINE)}…` : flat;
}

function deliveryLines(d: ReturnType<typeof presentDelivery>): string[] {
  const head = `  ${d.id}  ${d.endpoint}  ${d.status}${d.trigger === 'redeliver' ? ' (redelivery)' : ''}  ${d.attempt_count} attempt(s)`;
  const next = d.next_attempt_at !== null ? [`    next attempt   ${time(d.next_attempt_at)}`] : [];
  const attempts = (d.attempts as WebhookDelivery['attempts']).flatMap((a) => [
    `    #${a.attempt}  ${time(a.created_at)}  ${a.response_status ?? 'no answer'}  ${a.duration_ms} ms${a.error ? `  ${a.error}` : ''}${a.next_retry_at !== null ? `  retry ${time(a.next_retry_at)}` : ''}`,
    ...(a.response_excerpt ? [`        answered: ${oneLine(a.response_excerpt)}`] : []),
  ]);
  return [head, ...attempts, ...next];
}

async function eventShow(id: string, o: JsonFlag): Promise<void> {
  const { event, deliveries } = await withStore(async ({ store }) => {
    const owner = await store.db.selectFrom('events').select(['account_id', 'livemode']).where('id', '=', id).executeTakeFirst();
    const record = owner ? await findEvent(store.db, owner.account_id, owner.livemode === 1, id) : undefined;
    if (!record) throw new OperatorError(`No event ${id}`);
    const rows = await listDeliveries(store.db, { event_id: id }, { limit: SHOWN_DELIVERIES });
    return {
      event: { ...presentEvent(record, { maskRequestInfo: false }), account: record.account_id },
      deliveries: rows.slice(0, SHOWN_DELIVERIES).map(presentDelivery),
    };
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
}

export function eventCommands(program: Command): void {
  const events = program.command('events').description('the event log');
  command(events, 'show <eventId>', 'show an event (as webhooks carry it) and its webhook deliveries with every attempt').action(
    run(eventShow),
  );
}
