/** Token flags → the PIN state the user sees before typing (and the page gets with PIN errors). */
import type { PinState } from '@tawqi/shared';
import { CKF_PROTECTED_AUTHENTICATION_PATH, CKF_USER_PIN_COUNT_LOW, CKF_USER_PIN_FINAL_TRY, CKF_USER_PIN_LOCKED } from './constants.js';

export function pinStateFromFlags(flags: number): PinState {
  const count_low = (flags & CKF_USER_PIN_COUNT_LOW) !== 0;
  const final_try = (flags & CKF_USER_PIN_FINAL_TRY) !== 0;
  const locked = (flags & CKF_USER_PIN_LOCKED) !== 0;
  const pin_pad = (flags & CKF_PROTECTED_AUTHENTICATION_PATH) !== 0;
  const retries = locked ? 'locked' : final_try ? 'final_try' : count_low ? 'low' : 'ok';
  return { count_low, final_try, locked, pin_pad, retries };
}

/** One line for people, in English (the windows translate by `retries`). */
export function describePinState(pin: PinState): string {
  switch (pin.retries) {
    case 'locked':
      return 'PIN locked: unblock the token with its PUK or administrator tool.';
    case 'final_try':
      return 'Last try: one more wrong PIN locks the token.';
    case 'low':
      return 'A wrong PIN was entered before: few tries are left.';
    default:
      return pin.pin_pad ? 'Enter the PIN on the reader’s PIN pad.' : 'PIN ready.';
  }
}
