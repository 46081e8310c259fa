// What a document is read into before it is written out: headings, paragraphs,
// lists and tables, each a run of text pieces that may carry a link. PDFs and
// spreadsheets are read into blocks; the three text formats are written from
// them here, so markdown, html and text always say the same thing.

/** A piece of text, linked when `href` is set. */
export interface Run {
  text: string;
  href?: string;
}

export type Block =
  | { kind: 'heading'; level: number; runs: Run[] }
  | { kind: 'paragraph'; runs: Run[] }
  | { kind: 'list'; ordered: boolean; items: Run[][] }
  | { kind: 'table'; rows: string[][]; caption?: string };

export interface Rendered {
  markdown: string;
  html: string;
  text: string;
  links: string[];
}

const plain = (runs: Run[]) => runs.map((r) => r.text).join('');

// Characters markdown reads as syntax at the start of a line or inside text.
const escapeMarkdown = (text: string) => text.replace(/([\\`*_[\]<>])/g, '\\$1');
const atLineStart = (text: string) =>
  text.replace(/^(\s*)([#>+-]|\d+[.)])(\s)/, (_m, pre: string, mark: string, post: string) => `${pre}\\${mark}${post}`);

function markdownRuns(runs: Run[]): string {
  return runs
    .map((r) => {
      const text = escapeMarkdown(r.text);
      if (!r.href || !text.trim()) return text;
      const lead = /^\s*/.exec(text)?.[0] ?? '';
      const trail = /\s*$/.exec(text)?.[0] ?? '';
      return `${lead}[${text.trim()}](${r.href.replace(/[()\s]/g, encodeURIComponent)})${trail}`;
    })
    .join('');
}

const escapeHtml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function htmlRuns(runs: Run[]): string {
  return runs
    .map((r) => (r.href ? `<a href="${escapeHtml(r.href)}">${escapeHtml(r.text)}</a>` : escapeHtml(r.text)))
    .join('');
}

const cellMarkdown = (cell: string) =>
  escapeMarkdown(cell)
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, '<br>')
    .trim();

function tableMarkdown(rows: string[][]): string {
  const width = Math.max(...rows.map((r) => r.length));
  const padded = rows.map((r) => Array.from({ length: width }, (_, i) => cellMarkdown(r[i] ?? '')));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  const [head = [], ...body] = padded;
  return [line(head), line(head.map(() => '---')), ...body.map(line)].join('\n');
}

function tableHtml(rows: string[][], caption?: string): string {
  const [head = [], ...body] = rows;
  const cells = (tag: string, row: string[]) => row.map((c) => `<${tag}>${escapeHtml(c)}</${tag}>`).join('');
  return [
    '<table>',
    ...(caption ? [`<caption>${escapeHtml(caption)}</caption>`] : []),
    `<thead><tr>${cells('th', head)}</tr></thead>`,
    `<tbody>${body.map((r) => `<tr>${cells('td', r)}</tr>`).join('')}</tbody>`,
    '</table>',
  ].join('');
}

/** Markdown, HTML and plain text of the blocks, and the links they carry (de-duplicated, in order). */
export function render(blocks: readonly Block[]): Rendered {
  const markdown: string[] = [];
  const html: string[] = [];
  const text: string[] = [];
  const links = new Set<string>();
  for (const block of blocks) {
    const runs =
      block.kind === 'heading' || block.kind === 'paragraph'
        ? block.runs
        : block.kind === 'list'
          ? block.items.flat()
          : [];
    for (const r of runs) if (r.href) links.add(r.href);
    switch (block.kind) {
      case 'heading': {
        const level = Math.min(6, Math.max(1, block.level));
        markdown.push(`${'#'.repeat(level)} ${markdownRuns(block.runs).trim()}`);
        html.push(`<h${level}>${htmlRuns(block.runs)}</h${level}>`);
        text.push(plain(block.runs).trim());
        break;
      }
      case 'paragraph':
        markdown.push(atLineStart(markdownRuns(block.runs).trim()));
        html.push(`<p>${htmlRuns(block.runs)}</p>`);
        text.push(plain(block.runs).trim());
        break;
      case 'list': {
        const tag = block.ordered ? 'ol' : 'ul';
        markdown.push(
          block.items.map((item, i) => `${block.ordered ? `${i + 1}.` : '-'} ${markdownRuns(item).trim()}`).join('\n'),
        );
        html.push(`<${tag}>${block.items.map((item) => `<li>${htmlRuns(item)}</li>`).join('')}</${tag}>`);
        text.push(block.items.map((item) => plain(item).trim()).join('\n'));
        break;
      }
      case 'table':
        if (block.caption) markdown.push(escapeMarkdown(block.caption));
        markdown.push(tableMarkdown(block.rows));
        html.push(tableHtml(block.rows, block.caption));
        text.push([...(block.caption ? [block.caption] : []), ...block.rows.map((r) => r.join('\t'))].join('\n'));
        break;
    }
  }
  return {
    markdown: markdown.filter(Boolean).join('\n\n'),
    html: html.join('\n'),
    text: text.filter(Boolean).join('\n\n'),
    links: [...links],
  };
}
