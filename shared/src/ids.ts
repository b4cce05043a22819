/**
 * Identifier prefixes from the specification. Object ids are time-ordered (see server/src/ids.ts);
 * secrets are fully random.
 */
export const ID_PREFIX = {
  account: 'acct_',
  key: 'key_',
  signatureRequest: 'sr_',
  signer: 'sgr_',
  template: 'tpl_',
  webhookEndpoint: 'we_',
  event: 'evt_',
  workflow: 'wf_',
  identityVerification: 'idv_',
  ledger: 'led_',
  notice: 'ntc_',
  consoleUser: 'usr_',
  auditEntry: 'aud_',
  consoleCredential: 'ccr_',
  companyVerification: 'kyb_',
  companyDocument: 'kybd_',
} as const;

export type IdKind = keyof typeof ID_PREFIX;
