/**
 * The page controller: loads the State (GET /state, then POST /view once), renders the view of
 * its step, runs the views' API calls (busy buttons, errors in the alert region without leaving
 * the step), and moves focus and announcements when the step changes.
 */
import { Api, ApiError, NetworkError } from './api.js';
import { Chrome } from './chrome.js';
import * as frame from './frame.js';
import { strings, type Strings } from './i18n.js';
import type { Language, State, Step } from './types.js';
import type { ActOptions, View, ViewContext, ViewFactory } from './views/context.js';
import { accessView } from './views/access.js';
import { closedView, declinedView, messageView, notYourTurnView, signedView } from './views/final.js';
import { identityDeclinedView, identityHoldView, identityView, identityWaitView } from './views/identity.js';
import { otpView } from './views/otp.js';
import { reviewView } from './views/review.js';

const VIEWS: Record<Step, ViewFactory> = {
  access_code: accessView,
  otp: otpView,
  identity: identityView,
  identity_wait: identityWaitView,
  identity_declined: identityDeclinedView,
  identity_hold: identityHoldView,
  review: reviewView,
  signed: signedView,
  declined: declinedView,
  closed: closedView,
  not_your_turn: notYourTurnView,
};

const FINAL: readonly Screen[] = ['signed', 'declined', 'closed', 'ended', 'unknown'];

/** Pseudo-steps for the page's own screens. */
type Screen = Step | 'loading' | 'ended' | 'unknown';

export class App implements ViewContext {
  s: Strings;
  private readonly chrome: Chrome;
  private current: { screen: Screen; view: View } | null = null;
  private busy = false;
  private rendered = false;
  continuing = false;

  constructor(
    readonly api: Api,
    main: HTMLElement,
  ) {
    this.s = strings(pageLanguage());
    this.chrome = new Chrome(main, this.s);
  }

  async start(): Promise<void> {
    this.mount('loading', loadingView(this.s));
    let state: State;
    try {
      state = await this.api.state();
    } catch (err) {
      this.fatal(err);
      return;
    }
    let viewed: State | null = null;
    try {
      viewed = await this.api.view();
    } catch (err) {
      // A refused view (e.g. a closed request) still leaves the state to show.
      if (err instanceof ApiError && err.status === 401) {
        this.useLanguage(state.language);
        this.fatal(err);
        return;
      }
    }
    this.show(viewed ?? state);
    if (viewed) frame.notifyParent(viewed, frame.viewed(viewed));
  }

  show(state: State): void {
    const languageChanged = this.useLanguage(state.language);
    this.chrome.apply(state);
    frame.reportHeight(state);
    const known = Object.hasOwn(VIEWS, state.step);
    const step: Screen = known ? state.step : 'unknown';
    const cur = this.current;
    if (cur && cur.screen === step && !languageChanged && cur.view.update?.(state)) return;
    const factory = known ? VIEWS[state.step] : undefined;
    if (cur && cur.screen !== 'loading' && !FINAL.includes(cur.screen)) this.continuing = true;
    const view = factory ? factory(this, state) : messageView(this, 'unknownTitle', this.s.t('unknownBody'), true);
    this.mount(step, view, cur?.screen !== step);
  }

  async refresh(quiet = false): Promise<void> {
    try {
      this.show(await this.api.state());
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) this.fatal(err);
      else if (!quiet) this.report(err);
    }
  }

  async act<T>(buttons: readonly HTMLButtonElement[], call: () => Promise<T>, options: ActOptions = {}): Promise<T | null> {
    if (this.busy) return null;
    this.busy = true;
    // aria-disabled, not disabled: a disabled button would drop the keyboard focus.
    for (const b of buttons) {
      b.setAttribute('aria-busy', 'true');
      b.setAttribute('aria-disabled', 'true');
      b.classList.add('is-busy');
    }
    try {
      const result = await call();
      this.alert(null);
      return result;
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) {
        this.fatal(err);
        return null;
      }
      if (err instanceof ApiError) options.onError?.(err);
      this.report(err);
      // The server's state moved on (another step, a lock): show it, keeping the message.
      if (err instanceof ApiError && (err.status === 409 || err.code === 'access_code_locked' || err.code === 'otp_locked')) {
        await this.refresh(true);
      }
      return null;
    } finally {
      for (const b of buttons) {
        b.removeAttribute('aria-busy');
        b.removeAttribute('aria-disabled');
        b.classList.remove('is-busy');
      }
      this.busy = false;
    }
  }

  alert(message: string | null): void {
    this.chrome.setAlert(message);
  }

  announce(message: string, visible = false): void {
    this.chrome.announce(message, visible);
  }

  private report(err: unknown): void {
    if (err instanceof ApiError) this.alert(err.serverMessage ?? this.s.t('unexpectedError'));
    else if (err instanceof NetworkError) this.alert(this.s.t('networkError'));
    else this.alert(this.s.t('unexpectedError'));
  }

  /** A failure that leaves nothing to show: an ended session, or no State at all. */
  private fatal(err: unknown): void {
    this.chrome.bare();
    this.alert(null);
    if (err instanceof ApiError && err.status === 401) {
      this.mount('ended', messageView(this, 'sessionEndedTitle', err.serverMessage ?? this.s.t('sessionEndedBody'), true), true);
      return;
    }
    const body =
      err instanceof NetworkError
        ? this.s.t('networkError')
        : err instanceof ApiError && err.serverMessage
          ? err.serverMessage
          : this.s.t('unexpectedError');
    this.mount('unknown', messageView(this, 'unknownTitle', body, true), true);
  }

  private useLanguage(language: Language): boolean {
    if (language === this.s.lang) return false;
    this.s = strings(language === 'en' ? 'en' : 'ar');
    this.chrome.setStrings(this.s);
    return true;
  }

  private mount(screen: Screen, view: View, stepChanged = true): void {
    const previous = this.current;
    const focusWasInside = previous
      ? previous.view.root.contains(document.activeElement) || document.activeElement === document.body
      : false;
    previous?.view.destroy?.();
    this.current = { screen, view };
    this.chrome.setWide(view.wide === true);
    if (stepChanged) this.chrome.clearFlash();
    this.chrome.content.replaceChildren(view.root);
    view.root.classList.add('enter');

    const first = !this.rendered && screen !== 'loading';
    if (screen !== 'loading') this.rendered = true;
    if (screen === 'loading' || first) return;
    if (stepChanged) {
      window.scrollTo({ top: 0 });
      const target = view.focusTarget ?? view.heading;
      target.focus({ preventScroll: true });
      if (target !== view.heading) this.announce(view.heading.textContent ?? '');
    } else if (focusWasInside) {
      (view.focusTarget ?? view.heading).focus({ preventScroll: true });
    }
  }
}

/** Before the State arrives, the shell's language (set by the server) decides. */
function pageLanguage(): Language {
  return document.documentElement.lang.toLowerCase().startsWith('en') ? 'en' : 'ar';
}

function loadingView(s: Strings): View {
  const root = document.createElement('div');
  root.className = 'loading';
  const spinner = document.createElement('span');
  spinner.className = 'spinner';
  spinner.setAttribute('aria-hidden', 'true');
  const label = document.createElement('p');
  label.textContent = s.t('loading');
  root.append(spinner, label);
  return { root, heading: label };
}
