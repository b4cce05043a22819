/** The request log's entries as GET /console/api/request_log gives them, and what the screens derive from them. */
export interface LogEntry {
  id: string;
  request_id: string;
  livemode: boolean;
  method: string;
  path: string;
  status: number;
  code: string | null;
  /** The code's meaning in the page's language (the console API answers in it). */
  code_message: string | null;
  ip: string;
  key: string | null;
  key_type: 'secret' | 'publishable' | 'read_only' | 'console' | null;
  key_hint: string | null;
  user: { id: string; email: string | null } | null;
  idempotency_key: string | null;
  duration_ms: number | null;
  created_at: number;
}

export const STATUS_CLASSES = ['2xx', '4xx', '5xx'] as const;
export const METHODS = ['GET', 'POST', 'PATCH', 'DELETE'] as const;

/** The filters the list takes from its address (the API's query parameter names on the right). */
export const FILTERS = ['status', 'method', 'path', 'key', 'request_id'] as const;

export const statusTone = (status: number): 'ok' | 'warn' | 'bad' => (status < 400 ? 'ok' : status < 500 ? 'warn' : 'bad');

/** The console path of the object a request's path names, when the console has a page for it (a signature request). */
export function objectLink(path: string): string | null {
  const m = /^(?:\/en)?\/api\/v1\/signature_requests\/(sr_[A-Za-z0-9_]+)(?:\/|$)/.exec(path);
  return m ? `/requests/${m[1]}` : null;
}
