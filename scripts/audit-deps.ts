/**
 * The supply-chain check (issue 17): the real `npm audit --omit=dev --json` against the registry npm is
 * configured with (npm_config_registry and the other npm settings apply), compared with the reviewed
 * allowlist audit-allowlist.json.
 *
 *   node --import tsx scripts/audit-deps.ts [--allowlist FILE] [--today YYYY-MM-DD]
 *
 * Exit 0: checked, and every finding is allowlisted. Exit 1: a finding not allowlisted, an allowlist
 * entry that matches no finding (or at another severity), an entry past its review_by date or reviewed
 * for longer than the rule allows, an unreadable allowlist, or an answer npm could not make sense of.
 * Exit 3: NOT CHECKED — the advisory service could not be reached or refused the question; never a pass.
 * --today is the date the review_by rule is judged on (the tests inject it); today in UTC by default.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const NOT_CHECKED = 3;
/** The longest an acceptance may stand before it is reviewed again. */
const MAX_REVIEW_DAYS = 183;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const SEVERITIES = ['info', 'low', 'moderate', 'high', 'critical'];

interface Entry {
  advisory: string;
  package: string;
  severity: string;
  reason: string;
  reviewed_on: string;
  review_by: string;
}

interface Finding {
  advisory: string;
  package: string;
  severity: string;
  title: string;
}

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(name);
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1]! : fallback;
}

/** The allowlist's entries, or the reasons it is not valid. */
function readAllowlist(file: string): { entries: Entry[]; problems: string[] } {
  let doc: { accepted?: unknown };
  try {
    doc = JSON.parse(readFileSync(file, 'utf8')) as { accepted?: unknown };
  } catch (err) {
    return { entries: [], problems: [`${file}: ${(err as Error).message}`] };
  }
  if (!Array.isArray(doc.accepted)) return { entries: [], problems: [`${file}: "accepted" must be a list`] };
  const problems: string[] = [];
  const entries = doc.accepted as Entry[];
  entries.forEach((e, i) => {
    const str = (k: keyof Entry) => typeof e?.[k] === 'string' && e[k].trim() !== '';
    for (const k of ['advisory', 'package', 'severity', 'reason', 'reviewed_on', 'review_by'] as const)
      if (!str(k)) problems.push(`${file}: entry ${i}: "${k}" is missing`);
    if (str('severity') && !SEVERITIES.includes(e.severity)) problems.push(`${file}: entry ${i}: unknown severity ${e.severity}`);
    for (const k of ['reviewed_on', 'review_by'] as const)
      if (str(k) && !DATE.test(e[k])) problems.push(`${file}: entry ${i}: "${k}" is not YYYY-MM-DD`);
  });
  return { entries, problems };
}

const days = (from: string, to: string) => (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;

/** The review rule, judged on `today`: it needs no advisory service, so it holds even when the audit cannot run. */
function reviewProblems(entries: Entry[], today: string): string[] {
  const problems: string[] = [];
  for (const e of entries) {
    if (!DATE.test(e.review_by ?? '') || !DATE.test(e.reviewed_on ?? '')) continue;
    const name = `${e.package} ${e.advisory}`;
    if (e.review_by < today) problems.push(`${name}: review_by ${e.review_by} has passed (today ${today}): review it again`);
    if (days(e.reviewed_on, e.review_by) > MAX_REVIEW_DAYS)
      problems.push(`${name}: review_by ${e.review_by} is more than ${MAX_REVIEW_DAYS} days after reviewed_on ${e.reviewed_on}`);
  }
  return problems;
}

interface AuditJson {
  vulnerabilities?: Record<string, { via?: unknown[] }>;
  metadata?: { dependencies?: { prod?: number } };
  message?: string;
  uri?: string;
  statusCode?: number;
}

/** The advisories of npm's report (the `via` entries that are advisories, not "via another package"), each once. */
function findingsOf(report: AuditJson): Finding[] {
  const found = new Map<string, Finding>();
  for (const vuln of Object.values(report.vulnerabilities ?? {})) {
    for (const via of vuln.via ?? []) {
      if (typeof via !== 'object' || via === null) continue;
      const v = via as { source?: number; url?: string; name?: string; severity?: string; title?: string };
      const advisory = v.url ?? String(v.source);
      found.set(`${v.name}\n${advisory}`, {
        advisory,
        package: String(v.name),
        severity: String(v.severity),
        title: String(v.title ?? ''),
      });
    }
  }
  return [...found.values()];
}

/** npm's report, or why there is none: `unreachable` when the advisory service did not answer the question. */
function runNpmAudit(): { report: AuditJson } | { unreachable: string } | { broken: string } {
  const run = spawnSync('npm', ['audit', '--omit=dev', '--json'], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
  if (run.error) return { broken: `npm audit could not run: ${run.error.message}` };
  let report: AuditJson;
  try {
    report = JSON.parse(run.stdout) as AuditJson;
  } catch {
    return { broken: `npm audit printed no JSON (exit ${run.status}): ${(run.stderr || run.stdout).trim().slice(0, 500)}` };
  }
  // npm's audit error (npm/lib/utils/audit-error.js) is printed as JSON instead of a report.
  if (report.vulnerabilities === undefined) {
    const message = report.message ?? JSON.stringify(report).slice(0, 300);
    if (/advisories\/bulk/.test(message) || /advisories\/bulk/.test(report.uri ?? '')) return { unreachable: message };
    return { broken: `npm audit gave no report: ${message}` };
  }
  return { report };
}

function main(): number {
  const allowlistFile = option('--allowlist', 'audit-allowlist.json');
  const today = option('--today', new Date().toISOString().slice(0, 10));
  const { entries, problems } = readAllowlist(allowlistFile);
  problems.push(...reviewProblems(entries, today));

  const audit = runNpmAudit();
  if ('broken' in audit) problems.push(audit.broken);
  if ('unreachable' in audit) {
    for (const p of problems) console.log(`audit: FAIL ${p}`);
    console.log(
      `AUDIT NOT CHECKED: the advisory service could not be asked (${audit.unreachable}); ` +
        `no production dependency was checked for known vulnerabilities, and the allowlist's entries could not be matched. This is not a pass.`,
    );
    return problems.length > 0 ? 1 : NOT_CHECKED;
  }
  if ('report' in audit) {
    const findings = findingsOf(audit.report);
    const accepted = (f: Finding) => entries.find((e) => e.advisory === f.advisory && e.package === f.package && e.severity === f.severity);
    for (const f of findings)
      if (!accepted(f)) problems.push(`${f.package}: ${f.severity} ${f.advisory} "${f.title}" is not in ${allowlistFile}`);
    for (const e of entries)
      if (!findings.some((f) => accepted(f) === e))
        problems.push(
          `${e.package} ${e.advisory} (${e.severity}) in ${allowlistFile} matches no finding: remove it, or review its new severity`,
        );
    if (problems.length === 0) {
      const prod = audit.report.metadata?.dependencies?.prod ?? '?';
      console.log(`audit: checked ${prod} production packages: ${findings.length} finding(s), all allowlisted (${allowlistFile}).`);
      return 0;
    }
  }
  for (const p of problems) console.log(`audit: FAIL ${p}`);
  return 1;
}

process.exitCode = main();
