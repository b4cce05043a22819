/** What a screen is and what it may ask of the app (app.ts implements ScreenContext). */
import type { ConsoleApi, SessionInfo } from './api.js';
import type { Strings } from './i18n.js';
import type { PublicApi } from './publicApi.js';
import type { Place } from './router.js';

export interface Screen {
  /** For document.title. */
  title: string;
  root: HTMLElement;
  /** Focused (tabindex −1) when the screen replaces another, so a screen reader starts there. */
  heading: HTMLElement;
  destroy?(): void;
}

export interface ScreenContext {
  readonly s: Strings;
  readonly api: ConsoleApi;
  /** The signed-in user's session (null on the signed-out screens). */
  readonly session: SessionInfo | null;
  /** The public API (/api/v1) through the signed-in user's credential (publicApi.ts). */
  readonly publicApi: PublicApi;
  /** The layout's live/test switch: which mode's objects the screen shows. */
  readonly livemode: boolean;
  /** Where the screen was opened (its query, e.g. ?token=… or ?next=…). */
  readonly place: Place;
  /** Go to a console path ('/console/…'). */
  go(href: string, opts?: { replace?: boolean }): void;
  /** A short message shown (and announced) on the next screen, e.g. "You signed out". */
  flash(message: string): void;
  /** A polite announcement through the live region. */
  announce(message: string): void;
  /** After a sign-in: load the session and go on to `next` (a console path) or home. */
  signedIn(): Promise<void>;
  /** The session is over (signed out everywhere): forget it and go to the sign-in screen with `message`. */
  signedOut(message: string): void;
}

export type ScreenFactory = (ctx: ScreenContext) => Screen;
