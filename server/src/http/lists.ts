import { z } from 'zod';
import { invalidParam } from '../errors.js';

/** The list envelope shared by every list endpoint: newest first, cursor = last id of the page. */
export interface ListPage<T> {
  object: 'list';
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export function listPage<T extends { id: string }>(rows: T[], limit: number): ListPage<T> {
  const has_more = rows.length > limit;
  const data = has_more ? rows.slice(0, limit) : rows;
  return { object: 'list', data, has_more, next_cursor: has_more ? data[data.length - 1]!.id : null };
}

export const limitParam = (max: number) => z.coerce.number().int().min(1).max(max).default(20);

/** A time filter given as Unix seconds or an ISO date/date-time. */
export const timeParam = z.string().transform((v, c) => {
  const t = /^\d+$/.test(v) ? Number(v) : Math.floor(Date.parse(v) / 1000);
  if (!Number.isFinite(t)) {
    c.addIssue({ code: 'custom', message: 'Unix seconds or an ISO date' });
    return z.NEVER;
  }
  return t;
});

/**
 * `starting_after` must name an object this very list could show (same account and mode, and for
 * nested lists the same parent): an unknown or foreign cursor is refused as `400 parameter_invalid`
 * on `starting_after` — never read as "from the start" or "past the end" — on every list alike.
 * `inList` is one lookup by id (primary key) in the list's scope.
 */
export async function checkCursor(cursor: string | undefined, inList: (id: string) => Promise<boolean>): Promise<void> {
  if (cursor === undefined || (await inList(cursor))) return;
  throw invalidParam(
    'starting_after',
    `No such object in this list: ${cursor}. Pass the next_cursor of the previous page.`,
    `لا يوجد عنصر بهذا المعرّف في هذه القائمة: ${cursor}. مرّر قيمة next_cursor من الصفحة السابقة.`,
  );
}
