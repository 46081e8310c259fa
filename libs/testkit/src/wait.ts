// Tests wait for the condition they need, never for a fixed time.

/**
 * Polls `check` until it answers true; throws naming `what` after `timeoutMs` (a ceiling, not a pace).
 * `paceMs` is the time between two looks: short for a condition in this process (a counter, a batch),
 * longer for one that costs a request.
 */
export async function until(
  what: string,
  check: () => boolean | Promise<boolean>,
  timeoutMs = 30_000,
  paceMs = 200,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return;
    await new Promise((r) => setTimeout(r, paceMs));
  }
  throw new Error(`timed out waiting for: ${what}`);
}
