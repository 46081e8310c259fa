import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';

export interface Column<T> {
  header: string;
  cell: (row: T) => ComponentChildren;
  /** Numbers align right. */
  numeric?: boolean;
}

interface Props<T> {
  caption: string;
  columns: Column<T>[];
  rows: T[] | undefined;
  rowKey: (row: T) => string;
  /** Said in the table's place when there are no rows. */
  empty: string;
  /** Why `rows` never came (the page's alert says it): the table then says so rather than "Loading…". */
  error?: unknown;
  /**
   * On a phone, each row is a block of lines, a column's name and its value on each, rather
   * than a row too wide for the screen: for a table with few rows a person reads one at a time.
   */
  stacked?: boolean;
}

/**
 * A captioned table in a wrapper that scrolls sideways on a narrow screen; the wrapper
 * can take focus (and is named by the caption) so a keyboard can scroll it.
 */
export function Table<T>({ caption, columns, rows, rowKey, empty, error, stacked }: Props<T>) {
  const id = useId();
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard to scroll it
    <section class={stacked ? 'table-wrap stacked' : 'table-wrap'} aria-labelledby={id} tabIndex={0}>
      <table>
        <caption id={id}>{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th key={c.header} scope="col" class={c.numeric ? 'num' : undefined}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows?.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c) => (
                <td key={c.header} class={c.numeric ? 'num' : undefined}>
                  {stacked ? (
                    <>
                      {/* For the eye only: a screen reader has the column's header. */}
                      <span class="cell-label" aria-hidden="true">
                        {c.header}
                      </span>
                      <span>{c.cell(row)}</span>
                    </>
                  ) : (
                    c.cell(row)
                  )}
                </td>
              ))}
            </tr>
          ))}
          {rows && rows.length === 0 && (
            <tr>
              <td colSpan={columns.length} class="empty">
                {empty}
              </td>
            </tr>
          )}
          {!rows && (
            <tr>
              <td colSpan={columns.length} class="empty">
                {error ? 'Not loaded: see the message above.' : 'Loading…'}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </section>
  );
}
