/**
 * A small History API router for the paths under /console: links inside the console are followed
 * without reloading the page (plain <a href> elements, so they work with the keyboard, open in a new
 * tab with a modifier, and stay links for assistive technology), and Back/Forward re-render.
 */
export const ROOT = '/console';

export interface Place {
  /** The path below /console, without a trailing slash: '' for the home page, '/sign-in', … */
  path: string;
  query: URLSearchParams;
}

/** Where a screen is, for links and navigation: `at('/sign-in')` → '/console/sign-in'. */
export const at = (path: string): string => `${ROOT}${path}`;

/** The location of a URL inside the console, or null for anything else. */
export function locate(url: URL): Place | null {
  if (url.origin !== window.location.origin) return null;
  if (url.pathname !== ROOT && !url.pathname.startsWith(`${ROOT}/`)) return null;
  const path = url.pathname.slice(ROOT.length).replace(/\/+$/, '');
  if (path.startsWith('/api/') || path.startsWith('/assets/')) return null;
  return { path, query: url.searchParams };
}

export class Router {
  constructor(private readonly render: (place: Place) => void) {}

  start(): void {
    window.addEventListener('popstate', () => this.render(this.current()));
    document.addEventListener('click', (event) => this.follow(event));
    this.render(this.current());
  }

  current(): Place {
    return locate(new URL(window.location.href)) ?? { path: '', query: new URLSearchParams() };
  }

  /** Go to a console path ('/console/…'); `replace` leaves no history entry (redirects, tokens read from the URL). */
  go(href: string, opts: { replace?: boolean } = {}): void {
    const url = new URL(href, window.location.href);
    const place = locate(url);
    if (!place) {
      window.location.assign(url.href);
      return;
    }
    if (opts.replace) window.history.replaceState(null, '', url.pathname + url.search);
    else window.history.pushState(null, '', url.pathname + url.search);
    this.render(place);
  }

  /** Take over a plain left click on a link into the console. */
  private follow(event: MouseEvent): void {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = (event.target as Element | null)?.closest?.('a[href]');
    if (!(link instanceof HTMLAnchorElement) || (link.target && link.target !== '_self') || link.hasAttribute('download')) return;
    const url = new URL(link.href);
    // An in-page link (the skip link) stays the browser's: it moves the focus, not the screen.
    if (url.hash && url.pathname === window.location.pathname && url.search === window.location.search) return;
    if (!locate(url)) return;
    event.preventDefault();
    this.go(link.href);
  }
}
