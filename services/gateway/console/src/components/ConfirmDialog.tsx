import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

interface Props {
  /** Open while true; closing (Cancel, Escape) calls onCancel. */
  open: boolean;
  title: string;
  children?: ComponentChildren;
  confirmLabel: string;
  onConfirm: () => void;
  onCancel: () => void;
  busy?: boolean;
}

/**
 * A destructive action asked once more, in a native modal <dialog>: the page behind is inert,
 * Escape closes it, focus starts on Cancel (the safe choice) and returns to the button that
 * opened it.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, onConfirm, onCancel, busy }: Props) {
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

  // Whatever closed it (Escape, a button, the page changing), focus goes back where it was.
  const restore = () => {
    const back = opener.current;
    opener.current = null;
    // The opener may be gone with its row (a deleted key): the page's heading is the next place.
    const target = back instanceof HTMLElement && back.isConnected ? back : document.querySelector<HTMLElement>('h1');
    target?.focus();
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
          Cancel
        </button>
      </div>
    </dialog>
  );
}
