import { z } from 'zod';

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
