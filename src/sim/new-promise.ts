/**
 * A promise whose settle functions are taken right after, without allocating a closure for
 * the executor: `const p = newPromise<T>(); const resolve = takeResolve<T>();` (and
 * `takeReject()` if it is needed too). The hot paths (every call and every sleep of client
 * code) make one of these each.
 */
let lastResolve: ((value: never) => void) | null = null;
let lastReject: ((reason: unknown) => void) | null = null;

const keep = (resolve: (value: never) => void, reject: (reason: unknown) => void): void => {
  lastResolve = resolve;
  lastReject = reject;
};

export function newPromise<T>(): Promise<T> {
  return new Promise<T>(keep);
}

/** The resolve function of the promise `newPromise` made last; take it at once. */
export function takeResolve<T>(): (value: T) => void {
  const resolve = lastResolve as (value: T) => void;
  lastResolve = null;
  return resolve;
}

/** The reject function of the promise `newPromise` made last; take it at once (after `takeResolve`). */
export function takeReject(): (reason: unknown) => void {
  const reject = lastReject as (reason: unknown) => void;
  lastReject = null;
  return reject;
}
