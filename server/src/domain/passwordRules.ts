/**
 * What a console password must be (NIST SP 800-63B's advice: length rather than composition rules).
 * At least 12 characters, counted as characters (an Arabic letter is one, not two bytes); at most
 * 256, so hashing a hostile input stays cheap; not the account's email, nor a password that
 * contains its local part (the first thing an attacker tries). The answer is an error code of the
 * shared table, or null when the password is acceptable.
 */
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 256;

export type PasswordProblem = 'password_too_short' | 'password_too_long' | 'password_contains_email';

export function passwordProblem(password: string, email: string): PasswordProblem | null {
  const length = [...password].length;
  if (length < PASSWORD_MIN_LENGTH) return 'password_too_short';
  if (length > PASSWORD_MAX_LENGTH) return 'password_too_long';
  const lower = password.toLowerCase();
  const address = email.toLowerCase();
  const local = address.split('@')[0] ?? '';
  // A short local part ("ab") is too common a substring to refuse passwords for.
  if (lower.includes(address) || (local.length >= 4 && lower.includes(local))) return 'password_contains_email';
  return null;
}
