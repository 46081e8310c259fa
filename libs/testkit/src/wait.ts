// Tests wait for the condition they need, never for a fixed time.

/** Polls `check` until it answers true; throws naming `what` after `timeoutMs` (a ceiling, not a pace). */
export async function until(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for: ${what}`);
}
