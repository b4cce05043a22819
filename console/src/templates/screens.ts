/** The templates screens (issue 16 point 1), for the route table (nav.ts). */
export { templateListScreen } from './list.js';
export { templateNewScreen, templateScreen } from './editor.js';
