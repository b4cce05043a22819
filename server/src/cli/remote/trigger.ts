/**
 * `tawqi trigger <event type>`: make the test-mode objects that emit that event (scenarios.ts), like
 * `stripe trigger`, unattended. Test keys only: a live key is refused before anything is sent with it.
 */
import type { Tawqi } from '@tawqi/node';
import { Option, type Command } from 'commander';
import { command, emit, parseEmail, run, type JsonFlag } from '../kit.js';
import { connect, describeFailure, remoteOptions, type RemoteFlags } from './options.js';
import { NOT_TRIGGERABLE, SCENARIOS, type Fixture } from './scenarios.js';

interface TriggerFlags extends RemoteFlags, JsonFlag {
  list?: boolean;
  email?: string;
}

function printList(flags: TriggerFlags): void {
  const supported = Object.entries(SCENARIOS).map(([type, s]) => ({ type, does: s.does, test_helpers: s.helpers }));
  const other = Object.entries(NOT_TRIGGERABLE).map(([type, why]) => ({ type, why }));
  emit(flags, { supported, not_supported: other }, () => [
    'Event types tawqi trigger can make (test mode):',
    ...supported.map((s) => `  ${s.type.padEnd(36)} ${s.does}${s.test_helpers ? ' (test helpers)' : ''}`),
    'Not in test mode:',
    ...other.map((o) => `  ${o.type.padEnd(36)} ${o.why}`),
  ]);
}

/** The event types the request has produced so far, oldest first. */
async function eventsOf(tawqi: Tawqi, requestId: string): Promise<{ id: string; type: string }[]> {
  const page = await tawqi.events.list({ signature_request: requestId, limit: 100 });
  return page.data.map((e) => ({ id: e.id, type: e.type })).reverse();
}

async function trigger(type: string | undefined, flags: TriggerFlags): Promise<void> {
  if (flags.list) return printList(flags);
  if (!type) throw new Error('Name an event type, e.g. tawqi trigger signature_request.completed (--list shows them).');
  const scenario = SCENARIOS[type];
  if (!scenario) {
    const why = NOT_TRIGGERABLE[type];
    throw new Error(why ? `${type} cannot be triggered: ${why}.` : `Unknown event type ${type} (--list shows the types).`);
  }
  const key = flags.apiKey?.trim() ?? '';
  if (key.startsWith('sk_') && !key.startsWith('sk_test_'))
    throw new Error('tawqi trigger makes test objects only: use a test key (sk_test_…).');
  if (!flags.email) throw new Error('Give --email: the account’s own address or a team member’s (test-mode signers must be one).');
  const { tawqi, info } = await connect(flags, 2);
  if (info.livemode) throw new Error('tawqi trigger makes test objects only: use a test key (sk_test_…).');
  const fixture: Fixture = { tawqi, email: flags.email };
  const request = await scenario.run(fixture).catch((err: unknown) => {
    throw new Error(describeFailure(err));
  });
  const events = await eventsOf(tawqi, request.id);
  emit(flags, { type, signature_request: request.id, events }, () => [
    `Triggered ${type}: ${scenario.does} (${request.id})`,
    ...events.map((e) => `  ${e.type} [${e.id}]`),
  ]);
}

export function triggerCommand(program: Command): void {
  remoteOptions(command(program, 'trigger [type]', 'Make the test-mode objects that emit an event type (test keys only)'))
    .option('--list', 'list the event types that can be triggered')
    .addOption(
      new Option('--email <address>', 'the signers’ email: the account’s own or a team member’s')
        .env('TAWQI_TRIGGER_EMAIL')
        .argParser(parseEmail),
    )
    .action(run((type: string | undefined, flags: TriggerFlags) => trigger(type, flags)));
}
