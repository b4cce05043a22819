/**
 * Wait for something an event source will bring (a line of output, a request received): `probe` is
 * asked now and each time the source calls the waiters in `wakers`; the first value it returns
 * (not undefined) resolves, else after `timeoutMs` it rejects with `failure()`.
 */
export function waitFor<T>(probe: () => T | undefined, wakers: Set<() => void>, failure: () => string, timeoutMs = 120_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const value = probe();
      if (value === undefined) return;
      done();
      resolve(value);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(failure()));
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      wakers.delete(check);
    };
    wakers.add(check);
    check();
  });
}
