import type { Router } from 'express';

interface Layer {
  rawPath?: unknown;
  route?: { path: string; methods: Record<string, boolean> };
  handle: { stack?: unknown };
}

/**
 * The routes an Express router really serves, as `METHOD /path`, walking nested routers and
 * joining the paths they are mounted at (`router.use('/api', api)` → `GET /api/state`): what the
 * authorization tables are compared with, so a route mounted outside a registry is seen too.
 */
export function mountedRoutes(router: Router): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        for (const m of Object.keys(layer.route.methods)) out.push(`${m.toUpperCase()} ${prefix}${layer.route.path}`);
      } else if (Array.isArray(layer.handle.stack)) {
        const at = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
        walk(layer.handle.stack as Layer[], prefix + at);
      }
    }
  };
  walk(router.stack as unknown as Layer[], '');
  return out.sort();
}
