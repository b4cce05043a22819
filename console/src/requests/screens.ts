/** The Requests section's screens (issue 15 point 3), for nav.ts. */
export { requestListScreen } from './list.js';
export { requestDetailScreen } from './detail.js';
export { requestNewScreen } from './create.js';
