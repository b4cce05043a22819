/**
 * The authorization matrix as data (issue 17 point 2): every route of the public API and of the
 * signing page's API, with the answer each credential gets. authorization-matrix.test.ts fails when
 * a route is served without a row here, or a row names a route that is not served, and then plays
 * every cell over HTTP with a request that is valid apart from its credential.
 *
 * Adding a route: add its row with one answer per column (the columns are in the order of
 * API_CREDENTIALS / PAGE_CREDENTIALS), and a fixture for it in the test (FIXTURES: a path with real
 * ids and a valid body). Answers are words, not numbers, so a row reads as a rule:
 *   ok       the route's success status (its RouteSpec `status`; 200 on the signing page)
 *   forbid   403 forbidden            (a key the route or the key's own rules refuse)
 *   nokey    401 api_key_missing      (no Authorization header: a console cookie is not an API credential)
 *   badkey   401 invalid_api_key      (unknown, malformed, revoked or expired key)
 *   notfound 404 not_found            (another account's object: never 200, never a 403 that would leak it exists)
 *   noref    400 invalid_request      (a body naming another account's object: the answer to an id that does not exist)
 *   testonly 403 test_mode_only       (a test helper called with a live key)
 *   nopage   401 page_session_invalid (no, a malformed or an expired page token)
 *   state    409 invalid_state        (a valid page token whose signer may not do this now)
 *   ticket   401 ticket_invalid       (a sign ticket that is missing, replayed or another signer's)
 */
import type { ErrorCode } from '../../shared/src/errors.js';

export const OUTCOMES = {
  forbid: 'forbidden',
  nokey: 'api_key_missing',
  badkey: 'invalid_api_key',
  notfound: 'not_found',
  noref: 'invalid_request',
  testonly: 'test_mode_only',
  nopage: 'page_session_invalid',
  state: 'invalid_state',
  ticket: 'ticket_invalid',
} as const satisfies Record<string, ErrorCode>;
export type Outcome = 'ok' | keyof typeof OUTCOMES;

/**
 * The credentials tried on every /api/v1 route, in column order. Keys are account A's unless said.
 * publishable keys are sent from their allowed Origin; rotated keys are secret test keys rotated
 * with the default 24-hour grace (past it: the injected clock moved 24 h and 1 s on); other_account
 * is account B's secret key on account A's objects; cookie_* is a console session (cookie and CSRF
 * header) of each role; console_* the short-lived internal credential (ck_…) the console issues to
 * a user of that role for the API (test mode).
 */
export const API_CREDENTIALS = [
  'secret_live',
  'secret_test',
  'publishable_live',
  'publishable_test',
  'read_only_live',
  'read_only_test',
  'rotated_in_grace',
  'rotated_past_grace',
  'revoked',
  'other_account',
  'none',
  'malformed',
  'cookie_owner',
  'cookie_admin',
  'cookie_developer',
  'cookie_viewer',
  'console_owner',
  'console_admin',
  'console_developer',
  'console_viewer',
] as const;
export type ApiCredential = (typeof API_CREDENTIALS)[number];

// prettier-ignore
/** `METHOD /path` as the route registry declares it → one answer per API_CREDENTIALS column. */
export const API_MATRIX: Record<string, string> = {
  //                                           sk_live  sk_test  pk_live  pk_test  ro_live  ro_test  grace    past     revoked  other    none     malform  sess_own sess_adm sess_dev sess_vwr cred_own cred_adm cred_dev cred_vwr
  'GET /':                                    'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /usage':                               'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /balance':                             'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /templates':                           'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /templates':                          'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /templates/:id':                       'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /signature_requests':                 'ok       ok       ok       ok       forbid   forbid   ok       badkey   badkey   noref    nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /signature_requests':                  'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /signature_requests/:id':              'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /signature_requests/:id/send':        'ok       ok       ok       ok       forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'POST /signature_requests/:id/cancel':      'ok       ok       ok       ok       forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'POST /signature_requests/:id/reminders':   'ok       ok       ok       ok       forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /signers':                             'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /signers/:id':                         'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /signers/:id/signing_session':        'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /events':                              'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /events/:id':                          'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /events/:id/redeliver':               'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /events/:id/deliveries':               'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /signature_requests/:id/download':     'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /signature_requests/:id/download/pdf': 'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /signature_requests/:id/document':     'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /signature_requests/:id/certificate':  'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  // Evidence is sealed for live requests only: a test-mode key finds none, whoever holds it.
  'GET /signature_requests/:id/evidence':     'ok       notfound forbid   forbid   ok       notfound notfound badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    notfound notfound notfound notfound',
  // Public: answered before authentication, so whatever Authorization comes with it is not read.
  'GET /verifications/:reference':            'ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok       ok',
  'GET /identity_verifications/:id':          'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /signers/:id/identity_match':         'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'POST /webhook_endpoints':                  'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /webhook_endpoints':                   'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /webhook_endpoints/:id':               'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /webhook_endpoints/:id':              'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'DELETE /webhook_endpoints/:id':            'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /flows':                               'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /flows/:id':                           'ok       ok       ok       ok       ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /sessions':                           'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   noref    nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'GET /sessions':                            'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   ok       nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'GET /sessions/:id':                        'ok       ok       forbid   forbid   ok       ok       ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       ok',
  'POST /signature_requests/bulk':            'ok       ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   noref    nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'POST /test_helpers/signers/:id/verify_otp':'testonly ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'POST /test_helpers/signers/:id/identity':  'testonly ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
  'POST /test_helpers/signers/:id/sign':      'testonly ok       forbid   forbid   forbid   forbid   ok       badkey   badkey   notfound nokey    badkey   nokey    nokey    nokey    nokey    ok       ok       ok       forbid',
};

/**
 * The page tokens tried on every route of the signing page's API (/sign/api, signing-page/API.md),
 * in column order. own: the signer's page token, driven to the step the route is for; none and
 * malformed: no X-Tawqi-Page-Token, or one that was never issued; link_expired: the token of a
 * signing link 12 hours and a second after it was opened; session_expired: the token of an
 * embedded or redirect signing session past its expiry; canceled: the signer's token after the
 * request was canceled; not_turn: the token of the second signer of an ordered request while the
 * first has not signed.
 */
export const PAGE_CREDENTIALS = ['own', 'none', 'malformed', 'link_expired', 'session_expired', 'canceled', 'not_turn'] as const;
export type PageCredential = (typeof PAGE_CREDENTIALS)[number];

// prettier-ignore
/** `METHOD /path` as the signing router serves it → one answer per PAGE_CREDENTIALS column. */
export const PAGE_MATRIX: Record<string, string> = {
  //                             own             none            malformed       link_expired    session_expired canceled        not_turn
  // Reading the state, and a view (recorded only where the signer may act), answer a closed or not-yet-open page.
  'GET /api/state':              'ok              nopage          nopage          nopage          nopage          ok              ok',
  'POST /api/view':              'ok              nopage          nopage          nopage          nopage          ok              ok',
  'POST /api/access_code':       'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/otp/send':          'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/otp/verify':        'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/sign':              'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/decline':           'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/identity/start':    'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/identity/simulate': 'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/token/check':       'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/token/prepare':     'ok              nopage          nopage          nopage          nopage          state           state',
  'POST /api/token/complete':    'ok              nopage          nopage          nopage          nopage          state           state',
};

/**
 * The sign tickets tried on the routes a ticket authorizes (the qualified flow: the agent fetches
 * the preview with the ticket alone; complete takes the page token and the ticket), in column
 * order. own: the ticket this signer's prepare returned; none: no ticket (complete then answers
 * the signer's open prepared signature); malformed: not a ticket; replayed: a ticket already used
 * for a completed signature; other_signer: the ticket of another signer of the same request;
 * other_request: the ticket of a signer of another request; expired: five minutes and a second on.
 */
export const TICKET_CREDENTIALS = ['own', 'none', 'malformed', 'replayed', 'other_signer', 'other_request', 'expired'] as const;
export type TicketCredential = (typeof TICKET_CREDENTIALS)[number];

// prettier-ignore
export const TICKET_MATRIX: Record<string, string> = {
  //                             own             none            malformed       replayed        other_signer    other_request   expired
  // The preview is the agent's, authorized by the ticket alone: any open ticket shows its own document's first page.
  'GET /api/token/preview':      'ok              ticket          ticket          ticket          ok              ok              ticket',
  'POST /api/token/complete':    'ok              ok              ticket          ticket          ticket          ticket          ticket',
};
