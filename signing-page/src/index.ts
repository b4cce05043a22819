/** The signer's web page: built in the signing-page issue (order 3). This package exists so the layout is in place. */
export const SIGNING_PAGE_VERSION = '0.1.0';
