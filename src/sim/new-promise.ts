/**
 * A promise whose resolve function is taken right after, without allocating a closure for
 * the executor: `const p = newPromise<T>(); const resolve = takeResolve<T>();`. The hot paths
 * (every call and every sleep of client code) make one of these each.
 */
let last: ((value: never) => void) | null = null;

const keep = (resolve: (value: never) => void): void => {
  last = resolve;
};

export function newPromise<T>(): Promise<T> {
  return new Promise<T>(keep);
}

/** The resolve function of the promise `newPromise` made last; take it at once. */
export function takeResolve<T>(): (value: T) => void {
  const resolve = last as (value: T) => void;
  last = null;
  return resolve;
}
