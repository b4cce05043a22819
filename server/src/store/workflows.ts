import type { WorkflowSettings, WorkflowStatus } from '../domain/workflows.js';
import type { Tx } from './db.js';
import { decodeRow, encodeRow, type Codec } from './rowCodec.js';
import type { SessionSettings, SessionRecord } from '../domain/records.js';
export type { SessionSettings, SessionRecord };

/** A stored (custom) workflow: its working settings and its latest published version (0: never published). */
export interface WorkflowRecord {
  id: string;
  account_id: string;
  name: string;
  status: WorkflowStatus;
  settings: WorkflowSettings;
  version: number;
  created_at: number;
  updated_at: number;
}

export interface WorkflowVersionRecord {
  workflow_id: string;
  version: number;
  settings: WorkflowSettings;
  published_at: number;
}

const workflowCodec: Codec<WorkflowRecord> = { json: ['settings'], bool: [] };
const versionCodec: Codec<WorkflowVersionRecord> = { json: ['settings'], bool: [] };
const sessionCodec: Codec<SessionRecord> = { json: ['settings'], bool: ['livemode'] };

export async function insertWorkflow(tx: Tx, w: WorkflowRecord): Promise<void> {
  await tx
    .insertInto('workflows')
    .values(encodeRow(workflowCodec, w) as never)
    .execute();
}

export async function updateWorkflow(tx: Tx, id: string, changes: Partial<WorkflowRecord>): Promise<void> {
  await tx
    .updateTable('workflows')
    .set(encodeRow(workflowCodec, changes) as never)
    .where('id', '=', id)
    .execute();
}

export async function getWorkflow(tx: Tx, id: string): Promise<WorkflowRecord | undefined> {
  const row = await tx.selectFrom('workflows').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? decodeRow(workflowCodec, row) : undefined;
}

/** An account's stored workflows, newest first. */
export async function listWorkflows(tx: Tx, accountId: string): Promise<WorkflowRecord[]> {
  const rows = await tx.selectFrom('workflows').selectAll().where('account_id', '=', accountId).orderBy('id', 'desc').execute();
  return rows.map((r) => decodeRow(workflowCodec, r));
}

export async function insertWorkflowVersion(tx: Tx, v: WorkflowVersionRecord): Promise<void> {
  await tx
    .insertInto('workflow_versions')
    .values(encodeRow(versionCodec, v) as never)
    .execute();
}

export async function getWorkflowVersion(tx: Tx, workflowId: string, version: number): Promise<WorkflowVersionRecord | undefined> {
  const row = await tx
    .selectFrom('workflow_versions')
    .selectAll()
    .where('workflow_id', '=', workflowId)
    .where('version', '=', version)
    .executeTakeFirst();
  return row ? decodeRow(versionCodec, row) : undefined;
}

export async function listWorkflowVersions(tx: Tx, workflowId: string): Promise<WorkflowVersionRecord[]> {
  const rows = await tx
    .selectFrom('workflow_versions')
    .selectAll()
    .where('workflow_id', '=', workflowId)
    .orderBy('version', 'desc')
    .execute();
  return rows.map((r) => decodeRow(versionCodec, r));
}

export async function insertSession(tx: Tx, s: SessionRecord): Promise<void> {
  await tx
    .insertInto('sessions')
    .values(encodeRow(sessionCodec, s) as never)
    .execute();
}

export async function getSession(tx: Tx, signatureRequestId: string): Promise<SessionRecord | undefined> {
  const row = await tx.selectFrom('sessions').selectAll().where('signature_request_id', '=', signatureRequestId).executeTakeFirst();
  return row ? decodeRow(sessionCodec, row) : undefined;
}

export interface SessionListQuery {
  accountId: string;
  livemode: boolean;
  workflowId?: string;
  vendorData?: string;
  /** Request statuses to match (a session's "sent" covers the request's sent and viewed). */
  statuses?: readonly string[];
  startingAfter?: string;
  limit: number;
}

/** Session ids (= request ids) of the key's mode, newest first; limit + 1 rows for has_more. */
export async function listSessionIds(tx: Tx, q: SessionListQuery): Promise<string[]> {
  let query = tx
    .selectFrom('sessions')
    .innerJoin('signature_requests as r', 'r.id', 'sessions.signature_request_id')
    .select('sessions.signature_request_id as id')
    .where('sessions.account_id', '=', q.accountId)
    .where('sessions.livemode', '=', q.livemode ? 1 : 0);
  if (q.workflowId) query = query.where('sessions.workflow_id', '=', q.workflowId);
  if (q.vendorData !== undefined) query = query.where('sessions.vendor_data', '=', q.vendorData);
  if (q.statuses) query = query.where('r.status', 'in', [...q.statuses]);
  if (q.startingAfter) query = query.where('sessions.signature_request_id', '<', q.startingAfter);
  const rows = await query
    .orderBy('sessions.signature_request_id', 'desc')
    .limit(q.limit + 1)
    .execute();
  return rows.map((r) => r.id);
}
