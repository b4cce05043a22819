/**
 * The two frames a screen sits in: the signed-out one (a bar with the brand and the language switch,
 * one column) and the signed-in shell (side navigation, the account's name, the live/test switch, the
 * language switch and the user menu). An operator's shell has the admin's navigation and no
 * account name or live/test switch (an operator has no account). Both hold the flash (a visible role=status line), a hidden
 * live region for announcements, and <main id="main"> where the screen goes.
 */
import { bdi, h, replace } from '@tawqi/signing-page/dom';
import { icon } from '@tawqi/signing-page/kit';
import type { SessionInfo } from './api.js';
import type { Language, Strings } from './i18n.js';
import { ADMIN_NAV, NAV, type NavLink } from './nav.js';
import { at } from './router.js';

export interface LayoutHandlers {
  language(lang: Language): void;
  mode(livemode: boolean): void;
  signOut(): void;
}

export abstract class Layout {
  readonly slot = h('div', { class: 'slot' });
  readonly flash = h('p', { class: 'flash', attrs: { role: 'status' } });
  readonly status = h('div', { class: 'sr-only', attrs: { role: 'status', 'aria-live': 'polite' } });
  readonly langSwitch: HTMLButtonElement;
  /** Ends the document-level listeners when the layout is replaced. */
  protected readonly listeners = new AbortController();

  constructor(
    readonly s: Strings,
    protected readonly handlers: LayoutHandlers,
  ) {
    const other: Language = s.lang === 'ar' ? 'en' : 'ar';
    this.langSwitch = h(
      'button',
      {
        class: 'lang-toggle',
        attrs: { type: 'button', lang: other, 'data-lang-switch': other },
        on: { click: () => handlers.language(other) },
      },
      icon('globe'),
      s.t('otherLanguage'),
    );
  }

  abstract readonly signedIn: boolean;
  abstract mount(root: HTMLElement): void;
  /** Mark the navigation entry of the screen on show (signed-in shell only). */
  abstract setActive(path: string): void;

  destroy(): void {
    this.listeners.abort();
  }

  announce(message: string): void {
    this.status.textContent = '';
    // A fresh text node after a tick is announced even when the text repeats.
    window.setTimeout(() => (this.status.textContent = message), 50);
  }

  protected brand(): HTMLElement {
    return h(
      'a',
      { class: 'brand-name brand-default console-brand', attrs: { href: at('') } },
      icon('pen'),
      this.s.t('appName'),
      h('span', { class: 'console-tag' }, this.s.t('consoleName')),
    );
  }
}

export class PublicLayout extends Layout {
  readonly signedIn = false;

  mount(root: HTMLElement): void {
    document.body.classList.remove('is-shell', 'is-test');
    replace(
      root,
      h(
        'header',
        { class: 'topbar' },
        h('div', { class: 'topbar-inner' }, this.brand(), h('div', { class: 'top-actions' }, this.langSwitch)),
      ),
      h('main', { id: 'main', class: 'app public', attrs: { tabindex: -1 } }, h('div', { class: 'frame' }, this.flash, this.slot)),
      h('footer', { class: 'footer' }, h('p', null, icon('pen'), this.s.t('appName'))),
      this.status,
    );
  }

  setActive(): void {}
}

export class ShellLayout extends Layout {
  readonly signedIn = true;
  private readonly links = new Map<string, HTMLAnchorElement>();
  private readonly nav: HTMLElement;
  private readonly navToggle: HTMLButtonElement;
  private readonly menuButton: HTMLButtonElement;
  private readonly menu: HTMLElement;
  private readonly banner: HTMLElement;
  private readonly modeSwitch: HTMLButtonElement;
  private readonly operator: boolean;

  constructor(
    s: Strings,
    handlers: LayoutHandlers,
    private readonly session: SessionInfo,
    private livemode: boolean,
  ) {
    super(s, handlers);
    this.operator = session.user.operator === true;
    this.nav = this.buildNav();
    this.navToggle = h(
      'button',
      { class: 'nav-toggle btn btn-quiet btn-small', attrs: { type: 'button', 'aria-expanded': 'false', 'aria-controls': 'console-nav' } },
      icon('menu'),
      h('span', { class: 'nav-toggle-label' }, s.t('openNav')),
    );
    this.navToggle.addEventListener('click', () => this.toggleNav());
    this.modeSwitch = h(
      'button',
      { class: 'mode-switch', attrs: { type: 'button', role: 'switch', 'aria-checked': String(!livemode) } },
      h('span', { class: 'mode-track', attrs: { 'aria-hidden': 'true' } }),
      h('span', { class: 'mode-label' }, s.t('testMode')),
    );
    this.modeSwitch.addEventListener('click', () => this.setMode(!this.livemode));
    this.banner = h('div', { class: 'test-banner', attrs: { role: 'note' } }, icon('alert'), h('span', null, s.t('testBanner')));
    this.banner.hidden = livemode || this.operator;
    const user = session.user;
    const display = user.name || user.email;
    this.menuButton = h(
      'button',
      {
        class: 'user-button',
        attrs: { type: 'button', 'aria-expanded': 'false', 'aria-controls': 'user-menu' },
      },
      h('span', { class: 'avatar', attrs: { 'aria-hidden': 'true' } }, initials(display)),
      // The visible name starts the button's accessible name (WCAG 2.5.3); the menu's purpose follows, unseen.
      h('span', { class: 'user-name' }, bdi(display)),
      h('span', { class: 'sr-only' }, ` ${s.t('userMenu')}`),
      icon('chevronDown'),
    );
    this.menu = this.buildMenu();
    this.menuButton.addEventListener('click', () => this.toggleMenu());
  }

  mount(root: HTMLElement): void {
    document.body.classList.add('is-shell');
    document.body.classList.toggle('is-test', !this.livemode && !this.operator);
    const account = this.operator ? this.s.t('admOperatorTag') : (this.session.account?.name ?? '');
    const top = h(
      'header',
      { class: 'console-top' },
      this.navToggle,
      this.brand(),
      account ? h('span', { class: 'account-name' }, bdi(account)) : null,
      h(
        'div',
        { class: 'top-actions' },
        this.operator ? null : this.modeSwitch,
        this.langSwitch,
        h('div', { class: 'user' }, this.menuButton, this.menu),
      ),
    );
    replace(
      root,
      h('a', { class: 'skip-link', attrs: { href: '#main' } }, this.s.t('skipToContent')),
      this.banner,
      top,
      h(
        'div',
        { class: 'console-body' },
        this.nav,
        h('main', { id: 'main', class: 'console-main', attrs: { tabindex: -1 } }, this.flash, this.slot),
      ),
      this.status,
    );
  }

  setActive(path: string): void {
    // A page below a section (a request's detail) marks its section as the current place: the
    // deepest section holding it (/admin/status is the Status section's, not the one at /admin).
    const sections = [...this.links.keys()].filter((l) => l === path || (l !== '' && path.startsWith(`${l}/`)));
    const section = sections.sort((x, y) => y.length - x.length)[0];
    for (const [linkPath, a] of this.links)
      a.setAttribute('aria-current', linkPath === path ? 'page' : linkPath === section ? 'true' : 'false');
    this.toggleNav(false);
    this.toggleMenu(false);
  }

  private setMode(livemode: boolean): void {
    this.livemode = livemode;
    this.modeSwitch.setAttribute('aria-checked', String(!livemode));
    this.banner.hidden = livemode;
    document.body.classList.toggle('is-test', !livemode);
    this.handlers.mode(livemode);
  }

  private buildNav(): HTMLElement {
    const s = this.s;
    const allowed = (l: NavLink) => !l.permission || this.session.permissions.includes(l.permission);
    const link = (l: NavLink) => {
      const a = h('a', { class: 'nav-link', attrs: { href: at(l.path) } }, icon(l.icon), h('span', null, s.t(l.label)));
      this.links.set(l.path, a);
      return h('li', null, a);
    };
    const items = (this.operator ? ADMIN_NAV : NAV).map((item) => {
      if (!('links' in item)) return allowed(item) ? link(item) : null;
      const id = `nav-group-${item.label}`;
      return h(
        'li',
        { class: 'nav-group' },
        h('span', { id, class: 'nav-group-label' }, icon(item.icon), s.t(item.label)),
        h('ul', { attrs: { 'aria-labelledby': id } }, item.links.filter(allowed).map(link)),
      );
    });
    return h('nav', { id: 'console-nav', class: 'console-nav', attrs: { 'aria-label': s.t('mainNav') } }, h('ul', null, items));
  }

  private buildMenu(): HTMLElement {
    const s = this.s;
    const user = this.session.user;
    const signOut = h(
      'button',
      { class: 'menu-item', attrs: { type: 'button' }, on: { click: () => this.handlers.signOut() } },
      icon('logout'),
      s.t('signOut'),
    );
    const menu = h(
      'div',
      { id: 'user-menu', class: 'user-menu' },
      h(
        'div',
        { class: 'menu-who' },
        h('span', { class: 'muted' }, s.t('signedInAs')),
        h('strong', null, bdi(user.name || user.email)),
        h('span', { class: 'menu-email' }, bdi(user.email)),
        h('span', { class: 'role-chip' }, s.t(`role_${user.role}`)),
      ),
      h('a', { class: 'menu-item', attrs: { href: at('/security') } }, icon('shield'), s.t('navSecurity')),
      signOut,
    );
    menu.hidden = true;
    // Escape closes the menu and gives the focus back to its button; leaving it with Tab closes it too.
    menu.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') {
        this.toggleMenu(false);
        this.menuButton.focus();
      }
    });
    this.menuButton.addEventListener('keydown', (e) => {
      if (e.key === 'Escape') this.toggleMenu(false);
    });
    document.addEventListener(
      'click',
      (e) => {
        if (!menu.hidden && !menu.contains(e.target as Node) && !this.menuButton.contains(e.target as Node)) this.toggleMenu(false);
      },
      { signal: this.listeners.signal },
    );
    menu.addEventListener('focusout', (e) => {
      const to = e.relatedTarget as Node | null;
      if (to && !menu.contains(to) && to !== this.menuButton) this.toggleMenu(false);
    });
    return menu;
  }

  private toggleMenu(open = this.menu.hidden): void {
    this.menu.hidden = !open;
    this.menuButton.setAttribute('aria-expanded', String(open));
  }

  private toggleNav(open = !this.nav.classList.contains('is-open')): void {
    this.nav.classList.toggle('is-open', open);
    this.navToggle.setAttribute('aria-expanded', String(open));
  }
}

/** One or two letters for the avatar. */
function initials(name: string): string {
  const words = name
    .replace(/@.*/, '')
    .split(/[\s._-]+/)
    .filter(Boolean);
  return words
    .slice(0, 2)
    .map((w) => [...w][0]!.toUpperCase())
    .join('');
}
