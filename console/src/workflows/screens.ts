/** The Workflows screens (issue 16 point 1), for nav.ts. */
export { workflowListScreen } from './list.js';
export { workflowNewScreen } from './create.js';
export { workflowDetailScreen } from './detail.js';
