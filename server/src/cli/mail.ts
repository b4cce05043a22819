/** `tawqi mail …`: the outgoing messages kept in the database, rendered as they are sent. */
import type { Command } from 'commander';
import { renderMessage } from '../delivery/deliverMessage.js';
import { OperatorError } from '../services/accounts.js';
import type { MessageRow } from '../store/messages.js';
import { command, emit, parsePositive, requireAccount, run, serverSecrets, serverUrl, time, withStore, type JsonFlag } from './kit.js';

function presentMessageSummary(m: MessageRow) {
  return {
    id: m.id,
    created_at: m.created_at,
    account_id: m.account_id,
    livemode: m.livemode === 1,
    channel: m.channel,
    to: m.recipient,
    kind: m.kind,
    subject: m.subject,
    state: m.state,
  };
}

async function mailList(o: JsonFlag & { account?: string; limit: number }): Promise<void> {
  const messages = await withStore(async ({ store }) => {
    if (o.account) await requireAccount(store.db, o.account);
    let q = store.db.selectFrom('messages').selectAll().orderBy('id', 'desc').limit(o.limit);
    if (o.account) q = q.where('account_id', '=', o.account);
    return q.execute();
  });
  emit(o, { messages: messages.map(presentMessageSummary) }, () =>
    messages.length === 0
      ? ['No messages.']
      : messages.map(
          (m) =>
            `${String(m.id).padStart(6)}  ${time(m.created_at)}  ${m.channel.padEnd(8)} ${m.state.padEnd(6)} ${m.kind.padEnd(10)} ${m.recipient}  ${m.subject}`,
        ),
  );
}

async function mailShow(idText: string, o: JsonFlag & { html?: boolean }): Promise<void> {
  if (!/^\d{1,15}$/.test(idText)) throw new OperatorError(`No message ${idText} (message ids are numbers; see tawqi mail list)`);
  const { message, rendered } = await withStore(async (ctx) => {
    const { store, config } = ctx;
    const message = await store.db.selectFrom('messages').selectAll().where('id', '=', Number(idText)).executeTakeFirst();
    if (!message) throw new OperatorError(`No message ${idText}`);
    const rendered = await renderMessage(store.db, message, serverUrl(config), (await serverSecrets(ctx)).linkKey);
    return { message, rendered };
  });
  const full = {
    ...presentMessageSummary(message),
    sent_at: message.sent_at,
    language: message.language,
    signer_id: message.signer_id,
    signature_request_id: message.signature_request_id,
    text: rendered.text,
    html: rendered.html,
  };
  if (o.html && !o.json) {
    if (rendered.html === null) throw new OperatorError(`Message ${idText} has no HTML part`);
    process.stdout.write(rendered.html + '\n');
    return;
  }
  emit(o, { message: full }, () => [
    `Message ${message.id}  ${message.state}`,
    `  account     ${message.account_id}  (${message.livemode === 1 ? 'live' : 'test'})`,
    `  channel     ${message.channel}`,
    `  to          ${message.recipient}`,
    `  kind        ${message.kind}`,
    `  language    ${message.language}`,
    `  request     ${message.signature_request_id ?? '—'}${message.signer_id ? `  signer ${message.signer_id}` : ''}`,
    `  created     ${time(message.created_at)}`,
    `  sent        ${time(message.sent_at)}`,
    `  subject     ${message.subject}`,
    '',
    rendered.text,
    ...(rendered.html === null ? [] : ['', `(HTML part: tawqi mail show ${message.id} --html)`]),
  ]);
}

export function mailCommands(program: Command): void {
  const mail = program.command('mail').description('outgoing messages kept in the database (all of them when no SMTP relay is configured)');

  command(mail, 'list', 'list messages, newest first')
    .option('--account <id>', 'only this account')
    .option('--limit <n>', 'at most this many messages', parsePositive, 50)
    .action(run(mailList));

  command(mail, 'show <id>', 'show a message as it is sent, with the signing link rendered in')
    .option('--html', 'print the HTML part only (to save and open in a browser)')
    .action(run(mailShow));
}
