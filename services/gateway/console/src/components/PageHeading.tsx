import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import { PRODUCT } from '../lib/product.js';
import { Copy } from './Copy.js';

let firstPage = true;

/**
 * The page's one h1. It names the document, and after a navigation inside the app it takes
 * focus, so a screen reader says where the person landed (as a full page load would).
 */
export function PageHeading({ children, title }: { children: ComponentChildren; title: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${title} · ${PRODUCT}`;
    if (firstPage) firstPage = false;
    else heading.current?.focus();
  }, [title]);
  return (
    <h1 tabIndex={-1} ref={heading}>
      {children}
    </h1>
  );
}

/** The heading of one resource's page ("Run <id>"), with the Copy button of its id beside it. */
export function IdHeading({ kind, id }: { kind: 'Run' | 'Session'; id: string }) {
  return (
    <div class="title">
      <PageHeading title={`${kind} ${id}`}>
        {kind} <span class="id">{id}</span>
      </PageHeading>
      <Copy value={id} what={`${kind.toLowerCase()} id`} />
    </div>
  );
}
