/**
 * Following an account's new events by polling `GET /events` (newest first, `created_after`
 * inclusive, `starting_after` to page on).
 *
 * Event ids are time-ordered but stamped before their transaction commits, so an event can appear
 * after one with a later id or time: a cursor "after the newest id seen" would skip it. Instead each
 * poll reads a window — every event created since `LOOKBACK_SECONDS` before the newest one seen —
 * and keeps the ids already seen in that window. Events are handed on oldest first, once each.
 */
import type { Tawqi } from '@tawqi/node';

/** The event fields `listen` uses; the rest of the envelope is forwarded as it came. */
export interface EventEnvelope {
  id: string;
  type: string;
  created_at: number;
  [field: string]: unknown;
}

/** How far before the newest event seen each poll looks again: far longer than any write transaction. */
export const LOOKBACK_SECONDS = 60;
const PAGE = 100;

export class EventFollower {
  /** The ids seen in the window, with their creation time (to forget them once the window passes them). */
  private readonly seen = new Map<string, number>();
  private newest: number | null = null;
  /** The Svc-Version the server answered with: the version real deliveries to this account carry. */
  version = '';

  constructor(private readonly tawqi: Tawqi) {}

  /** Take the events that exist now as already seen: only later ones are new. */
  async start(signal?: AbortSignal): Promise<void> {
    const first = (await this.page({ limit: 1 }, signal)).data[0] as EventEnvelope | undefined;
    if (first) this.remember(await this.window(first.created_at - LOOKBACK_SECONDS, signal));
  }

  /** The events created since the last call, oldest first. */
  async poll(signal?: AbortSignal): Promise<EventEnvelope[]> {
    const since = this.newest === null ? undefined : this.newest - LOOKBACK_SECONDS;
    const fresh = (await this.window(since, signal)).filter((e) => !this.seen.has(e.id));
    this.remember(fresh);
    return fresh.sort((a, b) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Every event created at or after `since` (all of them when undefined: none existed at start). */
  private async window(since: number | undefined, signal?: AbortSignal): Promise<EventEnvelope[]> {
    const events: EventEnvelope[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await this.page(
        { created_after: since === undefined ? undefined : String(since), starting_after: cursor, limit: PAGE },
        signal,
      );
      events.push(...(page.data as EventEnvelope[]));
      const last = page.data.at(-1);
      if (!page.has_more || !last) return events;
      cursor = last.id;
    }
  }

  /** One page of events (newest first), noting the version that answered. */
  private async page(query: { created_after?: string; starting_after?: string; limit: number }, signal?: AbortSignal) {
    const page = await this.tawqi.events.list(query, { signal });
    this.version = page.lastResponse.headers.get('svc-version') ?? this.version;
    return page;
  }

  private remember(events: readonly EventEnvelope[]): void {
    for (const e of events) {
      this.seen.set(e.id, e.created_at);
      if (this.newest === null || e.created_at > this.newest) this.newest = e.created_at;
    }
    if (this.newest === null) return;
    const horizon = this.newest - LOOKBACK_SECONDS;
    for (const [id, created] of this.seen) if (created < horizon) this.seen.delete(id);
  }
}
