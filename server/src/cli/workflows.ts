/** `tawqi workflow …`: an account's workflows, named and versioned settings that POST /sessions uses. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { CHANNELS, LEGAL_LEVEL_OF, MAX_EXPIRES_IN, MIN_EXPIRES_IN, SIGNATURE_METHODS, type WorkflowSettings } from '../domain/workflows.js';
import { OperatorError } from '../services/accounts.js';
import {
  accountWorkflows,
  archiveWorkflow,
  changeWorkflow,
  createWorkflow,
  describeWorkflow,
  operatorView,
  publishWorkflow,
  type WorkflowPatch,
  type WorkflowWithVersion,
} from '../services/workflows.js';
import type { Account } from '../store/accounts.js';
import type { Db } from '../store/db.js';
import {
  clock,
  collect,
  command,
  emit,
  list,
  noneToNull,
  parseCount,
  parseEmail,
  parsePositive,
  requireAccount,
  run,
  time,
  withStore,
  type JsonFlag,
  type OrNone,
} from './kit.js';

interface WorkflowOptions extends JsonFlag {
  name?: string;
  document?: 'fixed' | 'per-request';
  template?: OrNone<string>;
  signatureMethod?: WorkflowSettings['signature_method'];
  channel?: WorkflowSettings['channel'];
  cc?: string[];
  clearCc?: boolean;
  requireIdAttachment?: 'on' | 'off';
  requireAccessCode?: 'on' | 'off';
  expiresIn?: number;
  language?: 'ar' | 'en';
  returnUrl?: OrNone<string>;
  ordered?: 'on' | 'off';
  reminders?: 'on' | 'off';
  reminderInterval?: number;
  reminderMax?: number;
  publish?: boolean;
}

function parseTemplateOrNone(text: string): OrNone<string> {
  if (text === 'none') return 'none';
  if (!/^tpl_[0-9A-Za-z_]{1,60}$/.test(text))
    throw new InvalidArgumentError('Expected a template id such as tpl_… (see GET /templates), or "none".');
  return text;
}

function parseExpiresIn(text: string): number {
  const n = parseCount(text);
  if (n < MIN_EXPIRES_IN || n > MAX_EXPIRES_IN)
    throw new InvalidArgumentError(`Expected days from ${MIN_EXPIRES_IN} to ${MAX_EXPIRES_IN}.`);
  return n;
}

function parseHttpsUrlOrNone(text: string): OrNone<string> {
  if (text === 'none') return 'none';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new InvalidArgumentError('Expected an https URL, or "none".');
  }
  if (url.protocol !== 'https:') throw new InvalidArgumentError('Expected an https URL, or "none".');
  return text;
}

const onOff = (v: 'on' | 'off' | undefined): boolean | undefined => (v === undefined ? undefined : v === 'on');

/** The settings a create/update changes, from its options. */
function workflowPatch(o: WorkflowOptions): WorkflowPatch {
  if (o.cc !== undefined && o.clearCc) throw new OperatorError('--cc and --clear-cc together: give one');
  const template = noneToNull(o.template);
  const returnUrl = noneToNull(o.returnUrl);
  const reminders = { enabled: onOff(o.reminders), interval_hours: o.reminderInterval, max: o.reminderMax };
  return {
    document_mode: o.document === undefined ? undefined : o.document === 'fixed' ? 'fixed' : 'per_request',
    template_id: template,
    signature_method: o.signatureMethod,
    channel: o.channel,
    cc: o.clearCc ? [] : o.cc,
    require_id_attachment: onOff(o.requireIdAttachment),
    require_access_code: onOff(o.requireAccessCode),
    expires_in: o.expiresIn,
    language: o.language,
    return_url: returnUrl,
    ordered: onOff(o.ordered),
    reminders: Object.values(reminders).some((v) => v !== undefined)
      ? Object.fromEntries(Object.entries(reminders).filter(([, v]) => v !== undefined))
      : undefined,
  };
}

function onOffText(v: boolean): string {
  return v ? 'on' : 'off';
}

function settingsLines(st: WorkflowSettings): string[] {
  const doc =
    st.document.mode === 'fixed'
      ? `fixed template ${st.document.template_id ?? '(not set: sessions are refused until it is)'}`
      : `per request (default template ${st.document.default_template_id ?? 'none'})`;
  return [
    `  document          ${doc}`,
    `  signature method  ${st.signature_method} (${LEGAL_LEVEL_OF[st.signature_method]})`,
    `  channel           ${st.channel}`,
    `  cc                ${list(st.cc)}`,
    `  ID attachment     ${onOffText(st.require_id_attachment)}`,
    `  access code       ${onOffText(st.require_access_code)}`,
    `  expires in        ${st.expires_in} days`,
    `  language          ${st.language}`,
    `  return URL        ${st.return_url ?? '—'}`,
    `  ordered           ${onOffText(st.ordered)}`,
    `  reminders         ${st.reminders.enabled ? `every ${st.reminders.interval_hours} h, at most ${st.reminders.max}` : 'off'}`,
  ];
}

function workflowLines(w: WorkflowWithVersion): string[] {
  const v = operatorView(w);
  const state = v.status === 'draft' ? 'draft (never published)' : `${v.status}, version ${v.version ?? '—'}`;
  return [
    `Workflow ${v.id}  "${v.name}"  ${state}${v.version !== null && v.unpublished_changes ? '  (unpublished changes)' : ''}${v.default ? '  (built in)' : ''}`,
    `  account           ${v.account}`,
    ...settingsLines(v.settings),
  ];
}

/** A workflow's account: given, or the stored workflow's own (the default workflow needs --account). */
async function workflowAccount(db: Db, id: string, accountId: string | undefined): Promise<Account> {
  if (accountId) return requireAccount(db, accountId);
  const row = await db.selectFrom('workflows').select('account_id').where('id', '=', id).executeTakeFirst();
  if (!row)
    throw new OperatorError(
      id === 'wf_default' || id === 'default' ? 'The default workflow exists in every account: give --account' : `No workflow ${id}`,
    );
  return requireAccount(db, row.account_id);
}

async function workflowCreate(o: WorkflowOptions & { account: string; name: string }): Promise<void> {
  const w = await withStore(({ store }) => createWorkflow(store, clock, o.account, o.name, workflowPatch(o), o.publish ?? false));
  emit(o, { workflow: operatorView(w) }, () => [
    ...workflowLines(w),
    '',
    w.published ? 'Published as version 1.' : `A draft: publish it with tawqi workflow publish ${w.workflow.id}`,
  ]);
}

async function workflowUpdate(id: string, o: WorkflowOptions): Promise<void> {
  const patch = workflowPatch(o);
  if (Object.values(patch).every((v) => v === undefined) && o.name === undefined)
    throw new OperatorError('Nothing to change; see tawqi workflow update --help');
  const w = await withStore(({ store }) => changeWorkflow(store, clock, id, patch, o.name));
  emit(o, { workflow: operatorView(w) }, () => [
    'Updated.',
    ...workflowLines(w),
    ...(w.published ? ['', `Sessions keep using version ${w.published.version} until: tawqi workflow publish ${id}`] : []),
  ]);
}

async function workflowPublish(id: string, o: JsonFlag): Promise<void> {
  const w = await withStore(({ store }) => publishWorkflow(store, clock, id));
  emit(o, { workflow: operatorView(w) }, () => [`Published version ${w.published!.version}.`, ...workflowLines(w)]);
}

async function workflowArchive(id: string, o: JsonFlag): Promise<void> {
  const w = await withStore(({ store }) => archiveWorkflow(store, clock, id));
  emit(o, { workflow: operatorView(w) }, () => ['Archived: new sessions are refused (409 workflow_not_live).', ...workflowLines(w)]);
}

async function workflowList(o: JsonFlag & { account: string }): Promise<void> {
  const all = await withStore(async ({ store }) => accountWorkflows(store.db, await requireAccount(store.db, o.account)));
  emit(o, { workflows: all.map(operatorView) }, () =>
    all.map((w) => {
      const v = operatorView(w);
      return `${v.id.padEnd(27)} ${v.status.padEnd(9)} v${String(v.version ?? '—').padEnd(4)} ${v.settings.channel.padEnd(8)} ${v.settings.signature_method.padEnd(8)} "${v.name}"${v.version !== null && v.unpublished_changes ? '  (unpublished changes)' : ''}`;
    }),
  );
}

async function workflowShow(id: string, o: JsonFlag & { account?: string }): Promise<void> {
  const shown = await withStore(async ({ store }) => describeWorkflow(store.db, await workflowAccount(store.db, id, o.account), id));
  emit(o, { workflow: shown }, () => [
    `Workflow ${shown.id}  "${shown.name}"  ${shown.status}${shown.default ? '  (built in)' : ''}`,
    `  account           ${shown.account}`,
    'Working settings (published with tawqi workflow publish):',
    ...settingsLines(shown.settings),
    '',
    `Versions (${shown.versions.length}, newest first):`,
    ...(shown.versions.length === 0 ? ['  —'] : shown.versions.map((v) => `  v${v.version}  published ${time(v.published_at)}`)),
  ]);
}

function workflowSettingOptions(c: Command): Command {
  return c
    .addOption(
      new Option(
        '--document <mode>',
        'fixed: one template for every request; per-request: the request names its template or document',
      ).choices(['fixed', 'per-request']),
    )
    .option('--template <tpl_id|none>', 'the fixed template, or the default template of per-request mode', parseTemplateOrNone)
    .addOption(
      new Option('--signature-method <method>', 'simple (ses), identity (aes, identity verified) or token (qes)').choices(
        SIGNATURE_METHODS,
      ),
    )
    .addOption(
      new Option('--channel <channel>', 'how signers get their links: email, whatsapp, or link (you deliver them)').choices(CHANNELS),
    )
    .option(
      '--cc <email>',
      'an address that gets a copy when a live request completes (repeatable, up to 20; replaces the list)',
      collect(parseEmail),
    )
    .option('--clear-cc', 'empty the cc list')
    .addOption(
      new Option('--require-id-attachment <on|off>', 'signers attach an ID document (Enterprise in live mode)').choices(['on', 'off']),
    )
    .addOption(
      new Option('--require-access-code <on|off>', 'every signer of a session needs an access_code (Enterprise in live mode)').choices([
        'on',
        'off',
      ]),
    )
    .option('--expires-in <days>', `days until a request expires (${MIN_EXPIRES_IN}–${MAX_EXPIRES_IN})`, parseExpiresIn)
    .addOption(new Option('--language <lang>', 'language of messages and the signing page').choices(['ar', 'en']))
    .option(
      '--return-url <https-url|none>',
      'where the return button leads after signing (an accepted domain; Business in live mode)',
      parseHttpsUrlOrNone,
    )
    .addOption(new Option('--ordered <on|off>', 'signers sign in order (Business in live mode)').choices(['on', 'off']))
    .addOption(new Option('--reminders <on|off>', 'automatic reminders').choices(['on', 'off']))
    .option('--reminder-interval <hours>', 'hours between automatic reminders (1–720)', parsePositive)
    .option('--reminder-max <n>', 'automatic reminders at most (0–10)', parseCount);
}

export function workflowCommands(program: Command): void {
  const workflow = program
    .command('workflow')
    .description("an account's workflows: named, versioned settings that POST /sessions creates requests with");

  workflowSettingOptions(
    command(workflow, 'create', 'create a workflow (a draft) from the base defaults and the options given')
      .requiredOption('--account <id>', 'account id')
      .requiredOption('--name <name>', 'a name for the workflow'),
  )
    .option('--publish', 'publish version 1 at once')
    .addHelpText(
      'after',
      '\nBase defaults: document per request, signature method simple, channel email, expires in 7 days, language ar, no ID attachment, no cc.\nCustom workflows need the Business plan in live mode; the default workflow (wf_default) is on every account and plan.',
    )
    .action(run(workflowCreate));

  workflowSettingOptions(
    command(workflow, 'update <workflowId>', 'change the working settings (and name); sessions use them once published').option(
      '--name <name>',
      'a new name',
    ),
  ).action(run(workflowUpdate));

  command(workflow, 'publish <workflowId>', 'publish the working settings as a new version (also brings back an archived workflow)').action(
    run(workflowPublish),
  );
  command(workflow, 'archive <workflowId>', 'stop new sessions with the workflow (existing requests are not touched)').action(
    run(workflowArchive),
  );
  command(workflow, 'list', "an account's workflows, the built-in default first")
    .requiredOption('--account <id>', 'account id')
    .action(run(workflowList));
  command(workflow, 'show <workflowId>', 'a workflow, its working settings and its versions')
    .option('--account <id>', 'account id (needed for wf_default)')
    .action(run(workflowShow));
}
