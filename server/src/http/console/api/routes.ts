/**
 * The console API's route registry: every route under /console/api is declared here with its
 * method, path and access, and this declaration mounts it behind the guard its access names. The
 * list is the source of truth for what the console serves: test/console/authorization.test.ts
 * holds one row per route and fails when the two differ, then checks every route over HTTP.
 */
import express, { type RequestHandler } from 'express';
import type { ConsolePermission } from '../../../domain/consoleRoles.js';
import type { AppContext } from '../../context.js';
import { checkOrigin, requireConsoleUser, requirePendingSignIn } from '../session.js';

export type ConsoleMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: anyone (`public`: sign-in, the emailed links; a state change still from
 * this server's own origin), any signed-in user (`session`: their own session, password, second
 * factor), a session past the password waiting for its second factor (`pending`), or a signed-in
 * user whose role holds the permission (domain/consoleRoles.ts).
 */
export type ConsoleAccess = 'public' | 'session' | 'pending' | ConsolePermission;

export interface ConsoleRoute {
  method: ConsoleMethod;
  /** Below /console/api, Express-style (`/users/:id`). */
  path: string;
  access: ConsoleAccess;
}

function guard(ctx: AppContext, access: ConsoleAccess): RequestHandler {
  if (access === 'public') {
    return (req, _res, next) => {
      checkOrigin(ctx, req);
      next();
    };
  }
  if (access === 'pending') return requirePendingSignIn(ctx);
  return requireConsoleUser(ctx, access === 'session' ? undefined : access);
}

/** The console API's routes: an Express router and the list of what it serves. */
export class ConsoleRoutes {
  readonly router = express.Router();
  private readonly declared: ConsoleRoute[] = [];

  constructor(private readonly ctx: AppContext) {}

  /** Mount `handlers` at `method path` behind the guard of `access`, and list the route. */
  add(method: ConsoleMethod, path: string, access: ConsoleAccess, ...handlers: RequestHandler[]): void {
    this.declared.push({ method, path, access });
    this.router[method](path, guard(this.ctx, access), ...handlers);
  }

  get list(): readonly ConsoleRoute[] {
    return this.declared;
  }
}
