import { useState } from 'preact/hooks';
import { Status } from './Status.js';

/** A secret shown once: a read-only textbox to select from and a Copy button. */
export function Secret({ label, value, note }: { label: string; value: string; note: string }) {
  const [said, setSaid] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setSaid('Copied to the clipboard.');
    } catch {
      setSaid('The browser did not allow copying: select the text and copy it yourself.');
    }
  };
  return (
    <div class="secret">
      <label>
        {label}
        <input type="text" readOnly value={value} onFocus={(e) => e.currentTarget.select()} spellcheck={false} />
      </label>
      <button type="button" onClick={copy}>
        Copy
      </button>
      <p class="note">{note}</p>
      <Status>{said}</Status>
    </div>
  );
}
