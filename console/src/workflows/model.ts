/**
 * The console's workflows (issue 16 point 1): the objects of /console/api/workflows
 * (server/src/services/consoleWorkflows.ts), the calls, and the labels of their settings. The
 * public API's GET /flows shows published workflows only, so the page reads these instead.
 */
import type { ConsoleApi } from '../api.js';
import type { Key, Strings } from '../i18n.js';

export const SIGNATURE_METHODS = ['simple', 'identity', 'token'] as const;
export const CHANNELS = ['email', 'whatsapp', 'link'] as const;
export const LANGUAGES = ['ar', 'en'] as const;

export interface WorkflowSettings {
  document: { mode: 'fixed'; template_id: string | null } | { mode: 'per_request'; default_template_id: string | null };
  signature_method: (typeof SIGNATURE_METHODS)[number];
  channel: (typeof CHANNELS)[number];
  cc: string[];
  require_id_attachment: boolean;
  require_access_code: boolean;
  expires_in: number;
  language: (typeof LANGUAGES)[number];
  return_url: string | null;
  ordered: boolean;
  reminders: { enabled: boolean; interval_hours: number; max: number };
}

export interface Workflow {
  id: string;
  name: string;
  status: 'draft' | 'published' | 'archived';
  default: boolean;
  /** The latest published version; null: never published. */
  version: number | null;
  published_at: number | null;
  /** The working copy differs from the latest published version. */
  unpublished_changes: boolean;
  /** The working copy. */
  settings: WorkflowSettings;
  created_at: number;
  updated_at: number;
}

export interface WorkflowVersion {
  version: number;
  published_at: number;
  settings: WorkflowSettings;
}

export type WorkflowDetail = Workflow & { versions: WorkflowVersion[] };

/** A change of the working copy, as the console API takes it (absent fields kept). */
export interface WorkflowBody {
  name?: string;
  document_mode?: 'fixed' | 'per_request';
  template_id?: string | null;
  signature_method?: string;
  channel?: string;
  cc?: string[];
  require_id_attachment?: boolean;
  require_access_code?: boolean;
  expires_in?: number;
  language?: string;
  return_url?: string | null;
  ordered?: boolean;
  reminders?: { enabled?: boolean; interval_hours?: number; max?: number };
}

const path = (id: string, action = '') => `/workflows/${encodeURIComponent(id)}${action}`;

export const workflowsApi = {
  list: (api: ConsoleApi) => api.call<{ data: Workflow[] }>('GET', '/workflows'),
  read: (api: ConsoleApi, id: string) => api.call<WorkflowDetail>('GET', path(id)),
  create: (api: ConsoleApi, body: WorkflowBody) => api.call<Workflow>('POST', '/workflows', body),
  update: (api: ConsoleApi, id: string, body: WorkflowBody) => api.call<Workflow>('PATCH', path(id), body),
  publish: (api: ConsoleApi, id: string) => api.call<Workflow>('POST', path(id, '/publish'), {}),
  archive: (api: ConsoleApi, id: string) => api.call<Workflow>('POST', path(id, '/archive'), {}),
};

/** Changing workflows is requests.write (server/src/http/console/api/workflows.ts). */
export const canWrite = (permissions: readonly string[] | undefined): boolean => permissions?.includes('requests.write') ?? false;

/** The template a workflow names: the fixed one, or the per-request default. */
export const templateOf = (st: WorkflowSettings): string | null =>
  st.document.mode === 'fixed' ? st.document.template_id : st.document.default_template_id;

export const stateTone = (w: Pick<Workflow, 'status'>): string =>
  w.status === 'published' ? 'ok' : w.status === 'archived' ? 'muted' : 'warn';

/** signature_method → its name and legal level (simple: SES, identity: AES, token: QES). */
export const methodLabel = (s: Strings, m: string): string => s.t(`wfMethod_${m}` as Key);
export const channelLabel = (s: Strings, c: string): string => s.t(`wfChannel_${c}` as Key);
export const languageLabel = (s: Strings, l: string): string => s.t(l === 'ar' ? 'wfLangAr' : 'wfLangEn');
export const yesNo = (s: Strings, v: boolean): string => s.t(v ? 'wfYes' : 'wfNo');
