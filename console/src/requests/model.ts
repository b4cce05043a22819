/** The public API's objects the request screens read (the parts they show), and shared helpers. */
import type { Strings } from '../i18n.js';

export const REQUEST_STATUSES = ['draft', 'sent', 'viewed', 'partially_signed', 'completed', 'declined', 'expired', 'canceled'] as const;
export type RequestStatus = (typeof REQUEST_STATUSES)[number];

export interface Signer {
  id: string;
  name: string;
  email: string | null;
  phone: string | null;
  status: string;
  signed_at: number | null;
}

export interface SignatureRequest {
  id: string;
  title: string;
  status: RequestStatus;
  livemode: boolean;
  created_at: number;
  reference?: string | null;
  signers: Signer[];
}

export interface ApiEvent {
  id: string;
  type: string;
  created_at: number;
}

export interface TemplateField {
  key: string;
  label: string;
  type: 'text' | 'date' | 'number' | 'email';
  required: boolean;
}

export interface Template {
  id: string;
  title: string;
  /** The account's own, or the ready-made library's. */
  source?: 'custom' | 'library';
  fields: TemplateField[];
}

/** A unix time as a date and time in the page's language (Latin digits in both). */
export function when(s: Strings, unix: number): string {
  return new Intl.DateTimeFormat(s.lang === 'ar' ? 'ar-EG-u-nu-latn' : 'en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(
    new Date(unix * 1000),
  );
}

/** The tone of a status badge. */
export function statusTone(status: string): 'ok' | 'warn' | 'bad' | 'muted' | 'brand' {
  if (status === 'completed' || status === 'signed') return 'ok';
  if (status === 'declined' || status === 'expired' || status === 'canceled') return 'bad';
  if (status === 'draft' || status === 'pending') return 'muted';
  return 'brand';
}

/** Requests that can still be canceled or reminded (spec 3.1). */
export const OPEN_STATUSES: readonly string[] = ['sent', 'viewed', 'partially_signed'];

export const canWrite = (permissions: readonly string[] | undefined): boolean => (permissions ?? []).includes('requests.write');
