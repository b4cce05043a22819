/**
 * The part of autocannon@8's programmatic API the benchmarks use. autocannon ships no types and
 * @types/autocannon is not installed, so this ambient declaration stands in for it.
 */
declare module 'autocannon' {
  import type { EventEmitter } from 'node:events';

  namespace autocannon {
    interface Histogram {
      average: number;
      mean: number;
      stddev: number;
      min: number;
      max: number;
      total: number;
      p2_5: number;
      p50: number;
      p75: number;
      p90: number;
      p97_5: number;
      p99: number;
      p99_9: number;
    }

    interface RequestParams {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
    }

    interface Request extends RequestParams {
      /** Return the request to send (a changed copy is fine), or a falsy value to restart the sequence. */
      setupRequest?: (request: RequestParams, context: Record<string, unknown>) => RequestParams | null | undefined;
      onResponse?: (status: number, body: string, context: Record<string, unknown>, headers: Record<string, string>) => void;
    }

    /** One connection (setupClient's argument): what it sends may be replaced before it starts. */
    interface Client {
      setRequests(requests: Request[]): void;
    }

    interface Options {
      /** Several URLs: connection i goes to url[i % url.length]. */
      url: string | string[];
      connections?: number;
      duration?: number;
      amount?: number;
      timeout?: number;
      pipelining?: number;
      method?: string;
      headers?: Record<string, string>;
      body?: string | Buffer;
      requests?: Request[];
      /** Called once per connection as it is made. */
      setupClient?: (client: Client) => void;
      title?: string;
      excludeErrorStats?: boolean;
    }

    interface Result {
      title?: string;
      url: string;
      latency: Histogram;
      requests: Histogram;
      throughput: Histogram;
      duration: number;
      errors: number;
      timeouts: number;
      mismatches: number;
      non2xx: number;
      resets: number;
      connections: number;
      '1xx': number;
      '2xx': number;
      '3xx': number;
      '4xx': number;
      '5xx': number;
      statusCodeStats: Record<string, { count: number }>;
    }

    interface Instance extends EventEmitter, PromiseLike<Result> {
      stop(): void;
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance;
  export = autocannon;
}
