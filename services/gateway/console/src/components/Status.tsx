import type { ComponentChildren } from 'preact';

/**
 * The outcome of an action, read out politely. The element stays in the page (empty when
 * there is nothing to say) so screen readers announce what later appears in it.
 */
export function Status({ children }: { children?: ComponentChildren }) {
  return (
    <p role="status" class="status">
      {children}
    </p>
  );
}
