/** The Developers → Logs screens (issue 15 point 4: the request log), for nav.ts. */
export { logListScreen } from './list.js';
export { logDetailScreen } from './detail.js';
