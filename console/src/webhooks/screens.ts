/** The Developers → Webhooks and Events screens (issue 15 point 4), for nav.ts. */
export { webhookListScreen } from './list.js';
export { webhookNewScreen } from './create.js';
export { webhookDetailScreen } from './detail.js';
export { eventListScreen } from '../events/list.js';
export { eventDetailScreen } from '../events/detail.js';
