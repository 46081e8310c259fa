import { Copy } from './Copy.js';

/** A secret shown once: a read-only textbox to select from and a Copy button. */
export function Secret({ label, value, note }: { label: string; value: string; note: string }) {
  return (
    <div class="secret">
      <label>
        {label}
        <input type="text" readOnly value={value} onFocus={(e) => e.currentTarget.select()} spellcheck={false} />
      </label>
      <Copy value={value} />
      <p class="note">{note}</p>
    </div>
  );
}
