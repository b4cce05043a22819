/**
 * The completion certificate: the request (id, reference, title, legal level, format, mode, sender,
 * times, document hash, verification address), the signers (masked contacts, method, time, ip, user
 * agent, identity) and the event trail. Starts on a page of its own.
 */
import type { FinalDocumentInput, SignerOnDocument } from '../types.js';
import type { Flow } from './flow.js';
import { formatUtc, type Labels } from './labels.js';
import { drawTable, type Cell, type Column } from './table.js';
import { layoutText } from './text.js';
import { COLOR, leading, SIZE } from './theme.js';

const MAX_CELL_LINES = 10;

export function drawCertificate(flow: Flow, input: FinalDocumentInput, t: Labels): void {
  const c = t.certificate;
  const dir = t.rtl ? 'rtl' : 'ltr';
  if (!flow.atTop) flow.newPage();
  flow.lines(layoutText(c.title, { size: SIZE.title, bold: true }, flow.width, dir), COLOR.text, leading(SIZE.title, t.language));
  flow.lines(layoutText(c.intro, { size: SIZE.small }, flow.width, dir), COLOR.muted, leading(SIZE.small, t.language));
  flow.gap(10);
  drawFacts(flow, input, t);
  heading(flow, c.signers, t);
  drawSigners(flow, input, t);
  heading(flow, c.trail, t);
  drawTrail(flow, input, t);
}

const tableOptions = (t: Labels) => ({ size: SIZE.table, language: t.language, maxLines: MAX_CELL_LINES }) as const;

/** The request's facts as a two-column table of label and value. */
function drawFacts(flow: Flow, input: FinalDocumentInput, t: Labels): void {
  const c = t.certificate;
  const sender =
    input.sender.brand_name && input.sender.brand_name !== input.sender.account_name
      ? `${input.sender.brand_name} (${input.sender.account_name})`
      : input.sender.account_name;
  const facts: [string, string][] = [
    [c.requestId, input.request_id],
    [t.reference, input.reference],
    [c.documentTitle, input.title],
    [c.legalLevel, c.levels[input.legal_level] ?? input.legal_level],
    [c.format, input.format],
    [c.mode, input.livemode ? c.live : c.test],
    [t.sender, sender],
    [c.created, formatUtc(input.created_at)],
    [t.completed, formatUtc(input.completed_at)],
    [c.hash, input.document_hash],
    [c.verification, input.verification_url],
  ];
  drawTable(
    flow,
    [
      { header: '', weight: 28 },
      { header: '', weight: 72 },
    ],
    facts.map(([label, value]) => [{ text: label, bold: true, color: COLOR.muted }, { text: value || t.none }]),
    { ...tableOptions(t), size: SIZE.small, header: false },
  );
}

/** One row per signer, in signing order. */
function drawSigners(flow: Flow, input: FinalDocumentInput, t: Labels): void {
  const c = t.certificate;
  const none = t.none;
  const columns: Column[] = [
    { header: c.columns.order, weight: 3 },
    { header: c.columns.name, weight: 14 },
    { header: c.columns.contact, weight: 18 },
    { header: c.columns.method, weight: 10 },
    { header: c.columns.signedAt, weight: 11 },
    { header: c.columns.ip, weight: 12 },
    { header: c.columns.userAgent, weight: 20 },
    { header: c.columns.identity, weight: 12 },
  ];
  const signerRows = [...input.signers]
    .sort((a, b) => a.order - b.order)
    .map((s): Cell[] => [
      { text: String(s.order) },
      { text: s.name, bold: true },
      { text: [s.email_masked, s.phone_masked].filter(Boolean).join('\n') || none },
      { text: c.methods[s.method] ?? s.method },
      { text: formatUtc(s.signed_at) },
      { text: s.ip || none },
      { text: s.user_agent || none },
      { text: identityText(s, t) },
    ]);
  drawTable(flow, columns, signerRows, { ...tableOptions(t), header: true });
}

/** The event trail, oldest first. */
function drawTrail(flow: Flow, input: FinalDocumentInput, t: Labels): void {
  const c = t.certificate;
  const none = t.none;
  const trailColumns: Column[] = [
    { header: c.trailColumns.time, weight: 14 },
    { header: c.trailColumns.event, weight: 24 },
    { header: c.trailColumns.actor, weight: 15 },
    { header: c.trailColumns.ip, weight: 13 },
    { header: c.trailColumns.userAgent, weight: 34 },
  ];
  const trailRows = [...input.trail]
    .sort((a, b) => a.at - b.at)
    .map((e): Cell[] => [
      { text: formatUtc(e.at) },
      { text: e.type },
      { text: c.actors[e.actor] ?? e.actor },
      { text: e.ip || none },
      { text: e.user_agent || none },
    ]);
  drawTable(flow, trailColumns, trailRows, { ...tableOptions(t), header: true });
}

function heading(flow: Flow, text: string, t: Labels): void {
  const lh = leading(SIZE.heading, t.language);
  flow.gap(16);
  // Keep the heading with at least the table's header and first row.
  flow.ensure(lh + 60);
  flow.lines(layoutText(text, { size: SIZE.heading, bold: true }, flow.width, t.rtl ? 'rtl' : 'ltr'), COLOR.text, lh);
  flow.gap(4);
}

function identityText(signer: SignerOnDocument, t: Labels): string {
  const c = t.certificate;
  const identity = signer.identity;
  if (!identity) return c.notRequired;
  const lines = [c.identity[identity.status] ?? identity.status];
  if (identity.provider) lines.push(identity.provider);
  if (identity.name_match) lines.push(`${c.nameMatchLabel}: ${c.nameMatch[identity.name_match] ?? identity.name_match}`);
  return lines.join('\n');
}
