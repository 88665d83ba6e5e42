// Values the code's own invariants promise: the ids row of a node's key, the label of a vertex a search read, the
// element at an index a loop over an array of the same length keeps in range. When one is missing the code is
// broken, not the request: the error names the invariant, and the error handler answers 500 without showing it.

/** `value`, or an Error saying that `what` was missing where the invariant promised it. */
export function present<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Invariant broken: ${what} is missing.`);
  return value;
}

/** The element at `index` of `list`, which the caller keeps in range (an index of another list of the same length). */
export function at<T>(list: readonly T[], index: number): T {
  const value = list[index];
  if (value === undefined) throw new Error(`Invariant broken: index ${index} is outside a list of ${list.length}.`);
  return value;
}
