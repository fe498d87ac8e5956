// Work too long for one turn of the event loop (a million keys, labels or entries), done a slice
// at a time so requests wait at most about a slice for it.

/** How long one slice may hold the event loop. */
export const SLICE_MS = 20;

/**
 * Call `step(until)` — which does what it can before `until` (performance.now()) and returns true
 * once nothing is left — until it is done, giving the event loop a turn between calls.
 */
export async function inSlices(step: (until: number) => boolean, sliceMs = SLICE_MS): Promise<void> {
  while (!step(performance.now() + sliceMs)) await new Promise((resolve) => setImmediate(resolve));
}
