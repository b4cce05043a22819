/** The console: entry point (bundled to dist/app-<hash>.js, loaded by the shell of /console). */
import { App } from './app.js';

const root = document.getElementById('console');
if (root) new App(root).start();
