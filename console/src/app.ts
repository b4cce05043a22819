/**
 * The console controller: matches the address to a screen (nav.ts), makes sure a signed-in screen
 * has a session (GET /session; none: the sign-in screen, then back), puts the screen in the right
 * layout, and moves the focus and the announcements when the screen changes.
 */
import { ApiError, ConsoleApi, type SessionInfo } from './api.js';
import { rememberLanguage, shellLanguage, strings, type Language, type Strings } from './i18n.js';
import { PublicLayout, ShellLayout, type Layout, type LayoutHandlers } from './layout.js';
import { PublicApi } from './publicApi.js';
import { findRoute, type RouteDef } from './nav.js';
import { at, locate, Router, type Place } from './router.js';
import type { Screen, ScreenContext } from './screen.js';
import { notFoundScreen } from './views/home.js';
import { adminNotAllowedScreen } from './admin/notAllowed.js';
import { cardScreen } from './views/parts.js';

const MODE_KEY = 'tawqi_console_mode';
/** The account screens an operator uses too: their own security (password, two-step sign-in). */
const OPERATOR_TOO = new Set(['/security']);

export class App {
  private s: Strings;
  private readonly api = new ConsoleApi();
  private readonly publicApi = new PublicApi(this.api);
  private readonly router = new Router((place) => void this.render(place));
  private session: SessionInfo | null = null;
  private layout: Layout | null = null;
  private screen: Screen | null = null;
  private pendingFlash: string | null = null;
  /** Each render's number: an older render that finishes late (a slow GET /session) does nothing. */
  private seq = 0;
  private livemode = localStorage.getItem(MODE_KEY) !== 'test';

  constructor(private readonly root: HTMLElement) {
    this.s = strings(shellLanguage(document));
    this.api.language = this.s.lang;
    this.api.onSessionEnded = () => this.sessionEnded();
  }

  start(): void {
    this.router.start();
  }

  private async render(place: Place): Promise<void> {
    const seq = ++this.seq;
    const route = findRoute(place.path);
    const needsSession = !route || route.access === 'signed-in';
    if (needsSession && !this.session) {
      try {
        this.session = await this.api.session();
      } catch (err) {
        if (seq !== this.seq) return;
        if (err instanceof ApiError && err.status === 401) {
          this.router.go(this.signInHref(place), { replace: true });
          return;
        }
        this.show(place, null, () => this.failureScreen());
        return;
      }
      if (seq !== this.seq) return;
    }
    if (route?.access === 'signed-in' && this.isOperator() && !route.admin && !OPERATOR_TOO.has(route.path)) {
      // An operator has no account: the account's screens are not theirs; the admin is their home.
      this.router.go(at('/admin'), { replace: true });
      return;
    }
    this.show(place, route, this.screenOf(route));
  }

  private isOperator(): boolean {
    return this.session?.user.operator === true;
  }

  /** The route's screen; the admin's screens show an account's user the "not allowed" state (the server refuses them too). */
  private screenOf(route: RouteDef | null): (ctx: ScreenContext) => Screen {
    if (!route) return notFoundScreen;
    return route.admin && !this.isOperator() ? adminNotAllowedScreen : route.screen;
  }

  private show(place: Place, route: RouteDef | null, make: (ctx: ScreenContext) => Screen): void {
    const signedIn = route ? route.access === 'signed-in' : this.session !== null;
    const previous = this.screen;
    this.screen?.destroy?.();
    const layout = this.layoutFor(signedIn);
    const screen = make(this.context(place));
    this.screen = screen;
    layout.slot.replaceChildren(screen.root);
    layout.setActive(place.path);
    document.title = this.s.t('docTitle', { page: screen.title });
    // The flash goes in after a tick, so a status region the layout has just mounted announces it.
    const flash = this.pendingFlash;
    this.pendingFlash = null;
    layout.flash.textContent = '';
    if (flash) window.setTimeout(() => (layout.flash.textContent = flash), 50);
    // The first screen keeps the browser's focus; a new one takes it to its heading, where a
    // screen reader starts reading, and the page scrolls back to the top.
    if (previous) {
      window.scrollTo({ top: 0 });
      screen.heading.focus({ preventScroll: true });
    }
  }

  /** The current layout, or a new one when the kind (or the language) changed. */
  private layoutFor(signedIn: boolean): Layout {
    const current = this.layout;
    if (current && current.signedIn === signedIn && current.s === this.s) return current;
    current?.destroy();
    const handlers: LayoutHandlers = {
      language: (lang) => this.switchLanguage(lang),
      mode: (livemode) => {
        this.livemode = livemode;
        localStorage.setItem(MODE_KEY, livemode ? 'live' : 'test');
        // The screen shows the other mode's objects now; the focus stays on the switch.
        this.rerender();
      },
      signOut: () => void this.signOut(),
    };
    const layout =
      signedIn && this.session ? new ShellLayout(this.s, handlers, this.session, this.livemode) : new PublicLayout(this.s, handlers);
    layout.mount(this.root);
    this.layout = layout;
    return layout;
  }

  private context(place: Place): ScreenContext {
    return {
      s: this.s,
      api: this.api,
      session: this.session,
      publicApi: this.publicApi,
      livemode: this.livemode,
      place,
      go: (href, opts) => this.router.go(href, opts),
      flash: (message) => (this.pendingFlash = message),
      announce: (message) => this.layout?.announce(message),
      signedIn: async () => {
        this.session = await this.api.session();
        this.router.go(this.nextHref(place), { replace: true });
      },
      signedOut: (message) => this.leave(message),
    };
  }

  /** The language switch: new texts everywhere, the choice kept, the focus back on the switch. */
  private switchLanguage(lang: Language): void {
    rememberLanguage(lang);
    this.s = strings(lang);
    this.api.language = lang;
    document.documentElement.lang = lang;
    document.documentElement.dir = this.s.dir;
    this.screen = null;
    void this.render(this.router.current()).then(() => this.layout?.langSwitch.focus());
  }

  private async signOut(): Promise<void> {
    try {
      await this.api.signOut();
    } catch {
      // Signed out already (an ended session) or unreachable: the screen leaves the console either way.
    }
    this.leave(this.s.t('signedOut'));
  }

  /** Forget the session and its credential, and go to the sign-in screen with `message`. */
  private leave(message: string): void {
    this.session = null;
    this.api.csrfToken = null;
    this.publicApi.clear();
    this.pendingFlash = message;
    this.router.go(at('/sign-in'), { replace: true });
  }

  /** The same place again in the same layout (the mode changed), without moving the focus. */
  private rerender(): void {
    const place = this.router.current();
    const route = findRoute(place.path);
    if (!route || route.access !== 'signed-in' || !this.layout) return;
    this.screen?.destroy?.();
    const screen = this.screenOf(route)(this.context(place));
    this.screen = screen;
    this.layout.slot.replaceChildren(screen.root);
    document.title = this.s.t('docTitle', { page: screen.title });
  }

  /** The server ended the session (idle or absolute expiry, sign-out elsewhere): sign in again, then come back. */
  private sessionEnded(): void {
    const place = this.router.current();
    const route = findRoute(place.path);
    if (!this.session || route?.access === 'public') return;
    this.session = null;
    this.publicApi.clear();
    this.pendingFlash = this.s.t('sessionEnded');
    this.router.go(this.signInHref(place), { replace: true });
  }

  private signInHref(place: Place): string {
    const here = `${at(place.path)}${place.query.size > 0 ? `?${place.query}` : ''}`;
    return place.path === '' ? at('/sign-in') : `${at('/sign-in')}?next=${encodeURIComponent(here)}`;
  }

  /** Where to go after a sign-in: the `next` console path, never another site. */
  private nextHref(place: Place): string {
    const next = place.query.get('next');
    if (next && next.startsWith('/') && !next.startsWith('//')) {
      const url = new URL(next, window.location.origin);
      const target = locate(url);
      if (target && findRoute(target.path)?.access !== 'public') return url.pathname + url.search;
    }
    return at('');
  }

  private failureScreen(): Screen {
    return cardScreen({ icon: 'alert', tone: 'warn', title: this.s.t('unexpectedError'), intro: this.s.t('networkError') });
  }
}
