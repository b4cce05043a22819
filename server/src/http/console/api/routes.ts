/**
 * The console API's route registry: every route under /console/api is declared here with its
 * method, path and access, and this declaration mounts it behind the guard its access names. The
 * list is the source of truth for what the console serves: test/console/authorization.test.ts
 * holds one row per route and fails when the two differ, then checks every route over HTTP.
 */
import express, { type RequestHandler } from 'express';
import type { ConsolePermission } from '../../../domain/consoleRoles.js';
import type { AppContext } from '../../context.js';
import { checkOrigin, requireAccountUser, requireConsoleUser, requireOperator, requirePendingSignIn } from '../session.js';

export type ConsoleMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * Who may call a route: anyone (`public`: sign-in, the emailed links; a state change still from
 * this server's own origin), any signed-in user (`session`: their own session, password, second
 * factor), a session past the password waiting for its second factor (`pending`), any user of an
 * account whatever the role (`account`: not an operator, who has none), an operator of the
 * installation (`operator`: the admin routes), or a signed-in user whose role holds the permission
 * (domain/consoleRoles.ts).
 */
export type ConsoleAccess = 'public' | 'session' | 'pending' | 'account' | 'operator' | ConsolePermission;

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
  if (access === 'operator') return requireOperator(ctx);
  if (access === 'account') return requireAccountUser(ctx);
  return requireConsoleUser(ctx, access === 'session' ? undefined : access);
}

/**
 * The console API's routes: an Express router and the list of what it serves. A route that reads
 * its own body (a file upload) is on `ownBodyRouter`, mounted before the console's JSON parser; its
 * guard still runs before a byte of the body is read.
 */
export class ConsoleRoutes {
  readonly router = express.Router();
  readonly ownBodyRouter = express.Router();
  private readonly declared: ConsoleRoute[] = [];

  constructor(private readonly ctx: AppContext) {}

  /** Mount `handlers` at `method path` behind the guard of `access`, and list the route. */
  add(method: ConsoleMethod, path: string, access: ConsoleAccess, ...handlers: RequestHandler[]): void {
    this.declared.push({ method, path, access });
    this.router[method](path, guard(this.ctx, access), ...handlers);
  }

  /** As `add`, for a route whose first handler parses its own (non-JSON) body. */
  addOwnBody(method: ConsoleMethod, path: string, access: ConsoleAccess, ...handlers: RequestHandler[]): void {
    this.declared.push({ method, path, access });
    this.ownBodyRouter[method](path, guard(this.ctx, access), ...handlers);
  }

  get list(): readonly ConsoleRoute[] {
    return this.declared;
  }
}
