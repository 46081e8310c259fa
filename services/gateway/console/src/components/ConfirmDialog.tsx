import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface Props {
  /** Open while true; closing (Cancel, Escape) calls onCancel. */
  open: boolean;
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  /** The safe choice's label, when "Cancel" would read as the action itself ("Cancel run"). */
  dismissLabel?: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
}

/**
 * A destructive action asked once more, in a native modal <dialog>: the page behind is inert,
 * Escape closes it, focus starts on the safe choice (Cancel) and returns to the button that
 * opened it.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  dismissLabel = 'Cancel',
  onConfirm,
  onCancel,
  busy,
}: Props) {
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<Element | null>(null);
  const titleId = useId();

  useEffect(() => {
    const d = dialog.current;
    if (!d) return;
    if (open && !d.open) {
      opener.current = document.activeElement;
      d.showModal();
      cancel.current?.focus();
    } else if (!open && d.open) {
      d.close();
    }
  }, [open]);

  // Unmounted while open (what it asked about went away: a run that settled), focus still goes
  // back, once the page has changed.
  useEffect(
    () => () => {
      const back = opener.current;
      if (back) queueMicrotask(() => focusBack(back));
    },
    [],
  );

  // Whatever closed it (Escape, a button, the page changing), focus goes back where it was.
  const restore = () => {
    const back = opener.current;
    opener.current = null;
    focusBack(back);
    if (open) onCancel();
  };

  return (
    <dialog ref={dialog} aria-labelledby={titleId} class="dialog" onClose={restore}>
      <h2 id={titleId}>{title}</h2>
      {children}
      <div class="actions">
        <button type="button" class="danger" onClick={onConfirm} disabled={busy}>
          {confirmLabel}
        </button>
        <button type="button" ref={cancel} onClick={onCancel}>
          {dismissLabel}
        </button>
      </div>
    </dialog>
  );
}

/** Focus on the element that opened a dialog, or on the page's heading when that is gone (a deleted key's row). */
function focusBack(opener: Element | null): void {
  const target =
    opener instanceof HTMLElement && opener.isConnected ? opener : document.querySelector<HTMLElement>('h1');
  target?.focus();
}
