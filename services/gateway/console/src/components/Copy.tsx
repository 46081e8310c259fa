import { useEffect, useState } from 'preact/hooks';

/** How long the button says "Copied" after a copy. */
const COPIED_MS = 2_000;

type Outcome = '' | 'copied' | 'refused';

const SAID: Record<Outcome, string> = {
  '': '',
  copied: 'Copied to the clipboard.',
  refused: 'The browser did not allow copying: select the text and copy it yourself.',
};

/**
 * A Copy button: `value` goes on the clipboard. The button says "Copied" for a moment and a
 * status reads it out; a browser that refuses (no permission) says so in words beside it.
 * `what` ends the button's name for a screen reader where a page has several ("Copy id of main").
 */
export function Copy({ value, what }: { value: string; what?: string }) {
  const [outcome, setOutcome] = useState<Outcome>('');

  useEffect(() => {
    if (outcome !== 'copied') return;
    const timer = setTimeout(() => setOutcome(''), COPIED_MS);
    return () => clearTimeout(timer);
  }, [outcome]);

  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setOutcome('copied');
    } catch {
      setOutcome('refused');
    }
  };

  return (
    <span class="copy">
      <button type="button" onClick={copy}>
        {outcome === 'copied' ? 'Copied' : 'Copy'}
        {what && <span class="visually-hidden"> {what}</span>}
      </button>
      {/* The button already shows a success; a refusal has to be read. */}
      <span role="status" class={outcome === 'refused' ? 'note' : 'visually-hidden'}>
        {SAID[outcome]}
      </span>
    </span>
  );
}

/**
 * An id with its Copy button: to paste into a call or quote to support. In full, as code; in a
 * list, `short` shows its first characters (the whole id is still its text and its tooltip),
 * and `href` links it to its page.
 */
export function CopyId({ id, what, short, href }: { id: string; what: string; short?: boolean; href?: string }) {
  const shown = short ? { class: 'short-id', title: id } : {};
  return (
    <span class="copy-id">
      {href ? (
        <a href={href} {...shown}>
          {id}
        </a>
      ) : (
        <code {...shown}>{id}</code>
      )}
      <Copy value={id} what={what} />
    </span>
  );
}
