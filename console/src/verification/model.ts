/**
 * Company verification as the console reads and changes it (GET /console/api/company_verification
 * and its actions, server/src/http/console/api/companyVerification.ts): the public API has no
 * route for it, so these are console API calls. The file checks here are only a quick answer in
 * the browser; the server decides by the file's first bytes.
 */
import type { KybStatus, VerificationStatus } from '@tawqi/shared/api';
import type { ConsoleApi } from '../api.js';

export interface CompanyDocument {
  id: string;
  file_name: string;
  content_type: string;
  size: number;
  created_at: number;
}

export interface Representative {
  name: string;
  verification_id: string | null;
  status: VerificationStatus | null;
  provider: string | null;
  simulated: boolean | null;
  name_match: { state: 'match' | 'mismatch' | 'pending'; document_name: string | null } | null;
  completed_at: number | null;
}

export interface CompanyVerificationView {
  status: KybStatus;
  submission: {
    id: string;
    status: string;
    submitted_at: number | null;
    decided_at: number | null;
    rejection_reason: string | null;
  } | null;
  representative: Representative | null;
  documents: CompanyDocument[];
  can_submit: boolean;
  editable: boolean;
  limits: { max_document_bytes: number; max_documents: number; accepted_types: string[] };
}

export interface StartedCheck {
  verification_id: string;
  url: string;
  provider: string;
  simulated: boolean;
}

const BASE = '/company_verification';

export const verificationApi = (api: ConsoleApi) => ({
  view: () => api.call<CompanyVerificationView>('GET', BASE),
  startRepresentative: (name: string) => api.call<StartedCheck>('POST', `${BASE}/representative`, { name }),
  upload: (file: File) => api.call<CompanyDocument>('POST', `${BASE}/documents?${new URLSearchParams({ file_name: file.name })}`, file),
  remove: (id: string) => api.call<unknown>('DELETE', `${BASE}/documents/${encodeURIComponent(id)}`),
  submit: () => api.call<CompanyVerificationView>('POST', `${BASE}/submit`, {}),
});

/** The owner's own download (a plain link: the session cookie goes with it; the server sends it as an attachment). */
export const documentHref = (id: string): string => `/console/api${BASE}/documents/${encodeURIComponent(id)}`;

/** Only the owner acts (the company.verify permission); everyone else reads. */
export const canVerify = (permissions: readonly string[] | undefined): boolean => (permissions ?? []).includes('company.verify');

const EXTENSIONS: Record<string, readonly string[]> = {
  'application/pdf': ['pdf'],
  'image/png': ['png'],
  'image/jpeg': ['jpg', 'jpeg'],
};

/** Why a chosen file cannot be sent ('type' or 'size'), or null: by its browser type or name, and its size. */
export function fileProblem(file: File, limits: CompanyVerificationView['limits']): 'type' | 'size' | 'empty' | null {
  const ext = file.name.toLowerCase().split('.').pop() ?? '';
  const typed = limits.accepted_types.some((t) => file.type === t || (EXTENSIONS[t] ?? []).includes(ext));
  if (!typed) return 'type';
  if (file.size === 0) return 'empty';
  return file.size > limits.max_document_bytes ? 'size' : null;
}

/** A byte count in the page's language (KB or MB, Latin digits as elsewhere in the console). */
export function byteSize(lang: 'ar' | 'en', bytes: number): string {
  const mb = bytes >= 1024 * 1024;
  const unit = mb ? 'megabyte' : 'kilobyte';
  const value = bytes / (mb ? 1024 * 1024 : 1024);
  return new Intl.NumberFormat(lang === 'ar' ? 'ar-EG-u-nu-latn' : 'en-GB', { style: 'unit', unit, maximumFractionDigits: 1 }).format(
    value,
  );
}
