/** What a step view receives from the page controller, and what it gives back. */
import type { Api, ApiError } from '../api.js';
import type { Strings } from '../i18n.js';
import type { State } from '../types.js';

export interface ActOptions {
  /** Step-specific handling of a refusal (attempts left, a retry delay…), before the message shows. */
  onError?: (error: ApiError) => void;
}

export interface ViewContext {
  readonly s: Strings;
  readonly api: Api;
  /** True once this page load has shown an open step (so a final step follows the signer's action). */
  readonly continuing: boolean;
  /**
   * Run one API call: marks the buttons busy, clears the alert on success, and on failure shows the
   * server's (localized) message in the alert region without leaving the step. Resolves to the
   * answer, or null after a failure.
   */
  act<T>(buttons: readonly HTMLButtonElement[], call: () => Promise<T>, options?: ActOptions): Promise<T | null>;
  /** Render a new State (same step: the view updates in place; other step: the new view mounts). */
  show(state: State): void;
  /** Fetch the State again and show it; `quiet` (polling) leaves network hiccups unreported. */
  refresh(quiet?: boolean): Promise<void>;
  /** Show a message in the alert region (role=alert); null clears it. */
  alert(message: string | null): void;
  /** A polite, non-interrupting announcement for screen readers (and a visible notice when asked). */
  announce(message: string, visible?: boolean): void;
}

export interface View {
  readonly root: HTMLElement;
  /** The view's heading: announced, and focused when the step changes (unless `focusTarget`). */
  readonly heading: HTMLElement;
  /** Focused instead of the heading when the page moves to this step (e.g. the code field). */
  readonly focusTarget?: HTMLElement;
  /** Use the wide layout (document + signing panel). */
  readonly wide?: boolean;
  /** A new State for the same step; return false (or omit) to have the view rebuilt instead. */
  update?(state: State): boolean;
  /** Stop timers and observers. */
  destroy?(): void;
}

export type ViewFactory = (ctx: ViewContext, state: State) => View;
