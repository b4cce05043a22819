import express from 'express';
import type { AppContext } from '../context.js';
import { consolePageRouter } from './page.js';

/** Everything under /console: the console API (/console/api) and the page host (the shell and its assets). */
export function consoleRouter(_ctx: AppContext): express.Router {
  const router = express.Router();
  router.use(consolePageRouter());
  return router;
}
