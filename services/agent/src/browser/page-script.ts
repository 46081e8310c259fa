/// <reference lib="dom" />
// What one frame shows the model: its visible interactive elements and the
// short text between them, in document order, open shadow roots included.
// `scanFrame` is serialised by Playwright and run inside each frame, so it
// must stay self-contained: no imports, no module-level values, everything
// it needs comes in as `limits`. Every string it reads belongs to the page
// (hostile): each is cleaned of control and bidi characters, of anything
// that could pass for our own `[i]` markers or tags, and bounded.

/** Bounds of one frame's scan, passed in by the driver. */
export interface ScanLimits {
  /** Characters of an element's own text. */
  textChars: number;
  /** Characters of a line of plain text between elements. */
  lineChars: number;
  /** Characters of one attribute value. */
  attrChars: number;
  /** Options of a `<select>` listed. */
  options: number;
  /** Items (elements, text lines, frames) a frame may answer. */
  items: number;
  /** Nodes visited before the walk stops. */
  visits: number;
  /** DOM nesting followed. */
  levels: number;
}

/** What an element is to a person: its role, its name, its state (the compact view of a page, for small models). */
export interface ElementInfo {
  role: 'textbox' | 'select' | 'checkbox' | 'radio' | 'file' | 'button' | 'link' | 'tab' | 'option' | 'other';
  /** Its name as a person reads it: its label, aria-label, text, placeholder or title. */
  name: string;
  /** What a field holds now (`•••` for a password or a secret), the labels a select has chosen. */
  value?: string;
  checked?: boolean;
  disabled?: boolean;
  expanded?: boolean;
  required?: boolean;
  /**
   * A form's submit button while the browser would not send the form (a required field empty, a
   * pattern unmet): a click does nothing until the fields are filled.
   */
  incomplete?: boolean;
  /** A text box the page fills itself (a calendar's, a picker's): it takes no typing, a click opens its chooser. */
  readonly?: boolean;
  /** A link to the page it is on (its address, or `aria-current="page"`): following it changes nothing. */
  current?: boolean;
  /** An empty text box's placeholder when it is not its name: the form it wants ("YYYY-MM-DD"). */
  hint?: string;
  /** A select's option labels, bounded as the line's. */
  options?: string[];
  /** The first words of the table row or list entry it is in, when they are not its own. */
  context?: string;
}

/** One line of a frame's list: an element to index, a line of text, or a child frame's place. */
export type PageItem =
  /** `slot` is the element's place in `FrameScan.elements`. */
  | { kind: 'element'; depth: number; line: string; key: string; slot: number; info: ElementInfo }
  | { kind: 'text'; depth: number; text: string }
  /** `slot` is the iframe's place in `FrameScan.frames`. */
  | { kind: 'frame'; depth: number; line: string; slot: number };

export interface FrameScan {
  items: PageItem[];
  /** The indexed elements (kept in the page, reached through a handle). */
  elements: Element[];
  /** The iframes shown, so the driver can place each child frame under its own. */
  frames: Element[];
  /** Pixels of the frame's document above and below its viewport. */
  scroll: { above: number; below: number };
  /** Items left out because a bound was reached. */
  cut: number;
  /** An open modal dialog: the items are the dialog's alone. */
  modal: boolean;
}

export function scanFrame(limits: ScanLimits): FrameScan {
  const ROLES = new Set([
    'button',
    'link',
    'checkbox',
    'radio',
    'switch',
    'tab',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'option',
    'combobox',
    'textbox',
    'searchbox',
    'slider',
    'spinbutton',
    'treeitem',
  ]);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title']);
  const BLOCK = new Set([
    'address',
    'article',
    'aside',
    'blockquote',
    'br',
    'dd',
    'div',
    'dl',
    'dt',
    'fieldset',
    'figcaption',
    'figure',
    'footer',
    'form',
    'h1',
    'h2',
    'h3',
    'h4',
    'h5',
    'h6',
    'header',
    'hr',
    'li',
    'main',
    'nav',
    'ol',
    'p',
    'pre',
    'section',
    'table',
    'tr',
    'ul',
  ]);
  /** A table's cells: a row is one line, its cells' texts between bars ("Aiko Tanaka | Engineering | 2019"). */
  const CELLS = new Set(['td', 'th']);
  const BUTTON_INPUTS = new Set(['submit', 'button', 'reset', 'image']);
  const CHECKABLE = new Set(['checkbox', 'radio']);

  const items: PageItem[] = [];
  const elements: Element[] = [];
  const frames: Element[] = [];
  const shadowRoots: ShadowRoot[] = [];
  const vw = window.innerWidth || 1;
  const vh = window.innerHeight || 1;
  let cut = 0;
  let visits = 0;
  let pending: string[] = [];
  let pendingChars = 0;
  let pendingDepth = 0;

  const clean = (value: unknown, max: number): string => {
    let text = String(value ?? '')
      .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, ' ')
      .replace(/\s+/g, ' ')
      .trim()
      .replace(/\[(\d+)\]/g, '($1)')
      .replace(/</g, '‹')
      .replace(/>/g, '›');
    if (text.length > max) text = `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
    return text;
  };
  const attr = (name: string, value: string): string => {
    if (value === '') return ` ${name}`;
    const text = clean(value, limits.attrChars);
    return /^[\w.@:/+-]+$/.test(text) ? ` ${name}=${text}` : ` ${name}="${text.replace(/"/g, "'")}"`;
  };
  const push = (item: PageItem): boolean => {
    if (items.length >= limits.items) {
      cut++;
      return false;
    }
    items.push(item);
    return true;
  };
  const flush = (): void => {
    if (pending.length === 0) return;
    // Empty cells leave no bars: none at a line's ends, one between two cells.
    const text = clean(pending.join(' '), limits.lineChars)
      .replace(/\|(?:\s*\|)+/g, '|')
      .replace(/^\|\s*|\s*\|$/g, '');
    pending = [];
    pendingChars = 0;
    if (text) push({ kind: 'text', depth: pendingDepth, text });
  };
  const addText = (text: string, depth: number): void => {
    if (!/\S/.test(text)) return;
    if (pending.length > 0 && depth !== pendingDepth) flush();
    pendingDepth = depth;
    if (pendingChars > limits.lineChars) return;
    pending.push(text);
    pendingChars += text.length;
  };

  const rendered = (el: Element): boolean => {
    if (el.checkVisibility()) return true;
    return getComputedStyle(el).display === 'contents';
  };
  // The viewport and half of one around it: what a scroll brings in is listed after it.
  const inRange = (r: DOMRect): boolean =>
    r.bottom > -vh / 2 && r.top < vh * 1.5 && r.right > -vw / 2 && r.left < vw * 1.5;
  const shown = (el: Element): boolean => {
    if (!el.checkVisibility({ checkOpacity: true, checkVisibilityCSS: true })) return false;
    const r = el.getBoundingClientRect();
    return r.width > 1 && r.height > 1 && inRange(r);
  };

  const interactive = (el: Element, tag: string): boolean => {
    switch (tag) {
      case 'a':
        if (el.hasAttribute('href')) return true;
        break;
      case 'button':
      case 'select':
      case 'textarea':
      case 'summary':
        return true;
      case 'input':
        return (el as HTMLInputElement).type !== 'hidden';
      case 'label': {
        // A label stands in for a control styled away (the custom checkbox).
        const control = (el as HTMLLabelElement).control;
        if (control && !shown(control)) return true;
        break;
      }
    }
    const role = el.getAttribute('role');
    if (role && ROLES.has(role.trim().toLowerCase())) return true;
    if (el instanceof HTMLElement) {
      if (el.isContentEditable && !el.parentElement?.isContentEditable) return true;
      if (el.hasAttribute('onclick') || typeof el.onclick === 'function') return true;
      if (el.hasAttribute('tabindex') && el.tabIndex >= 0) return true;
    }
    // Frameworks attach click handlers where the page cannot see them; the pointer cursor tells.
    const parent = el.parentElement;
    return getComputedStyle(el).cursor === 'pointer' && (!parent || getComputedStyle(parent).cursor !== 'pointer');
  };

  const ownText = (el: Element): string => {
    // biome-ignore lint/performance/useDomNodeTextContent: the rendered text is what the model reads, hidden parts left out
    const text = el instanceof HTMLElement ? el.innerText : el.textContent;
    const short = clean(String(text ?? '').slice(0, limits.textChars * 4), limits.textChars);
    if (short) return short;
    const img = el.querySelector('img[alt]');
    return clean(el.getAttribute('title') ?? img?.getAttribute('alt') ?? '', limits.textChars);
  };

  const TEXT_ROLES = new Set(['textbox', 'searchbox', 'combobox']);
  const ROLE_OF: Record<string, ElementInfo['role']> = {
    button: 'button',
    link: 'link',
    checkbox: 'checkbox',
    switch: 'checkbox',
    menuitemcheckbox: 'checkbox',
    radio: 'radio',
    menuitemradio: 'radio',
    tab: 'tab',
    option: 'option',
    treeitem: 'option',
    menuitem: 'button',
  };
  /** The text of the elements an aria-labelledby names. */
  const labelledBy = (el: Element): string => {
    const ids = (el.getAttribute('aria-labelledby') ?? '').split(/\s+/).filter(Boolean);
    const root = el.getRootNode() as Document | ShadowRoot;
    return ids.map((id) => root.getElementById?.(id)?.textContent ?? '').join(' ');
  };
  /** A label's words, less those of the controls inside it (a select's options, a button's text). */
  const labelText = (label: Element): string =>
    Array.from(label.childNodes, (n) =>
      n.nodeType === Node.TEXT_NODE
        ? n.nodeValue
        : n instanceof Element && !['input', 'select', 'textarea', 'button'].includes(n.localName)
          ? labelText(n)
          : '',
    ).join(' ');
  /** The element's role, name and state: the compact view's line of it. */
  const infoOf = (el: Element, tag: string, text: string): ElementInfo => {
    const aria = (el.getAttribute('role') ?? '').trim().toLowerCase();
    let role: ElementInfo['role'] = ROLE_OF[aria] ?? (TEXT_ROLES.has(aria) ? 'textbox' : 'other');
    let control: Element = el;
    if (el instanceof HTMLLabelElement && el.control) control = el.control;
    if (control instanceof HTMLInputElement) {
      const type = control.type;
      if (CHECKABLE.has(type)) role = type === 'radio' ? 'radio' : 'checkbox';
      else if (type === 'file') role = 'file';
      else if (BUTTON_INPUTS.has(type)) role = 'button';
      else if (type !== 'range' && type !== 'color') role = 'textbox';
    } else if (control instanceof HTMLTextAreaElement) role = 'textbox';
    else if (control instanceof HTMLSelectElement) role = 'select';
    else if (aria === '' && (tag === 'button' || tag === 'summary')) role = 'button';
    else if (aria === '' && tag === 'a') role = 'link';
    else if (aria === '' && el instanceof HTMLElement && el.isContentEditable) role = 'textbox';
    const labels =
      control instanceof HTMLInputElement ||
      control instanceof HTMLTextAreaElement ||
      control instanceof HTMLSelectElement
        ? Array.from(control.labels ?? [], labelText).join(' ')
        : '';
    // A control is named by its label, never by what it holds (a select's options, a field's value).
    const isControl = ['textbox', 'select', 'checkbox', 'radio', 'file'].includes(role);
    const named = [
      el.getAttribute('aria-label'),
      labelledBy(el),
      isControl ? labels : text,
      el.getAttribute('placeholder'),
      el.getAttribute('title'),
      control instanceof HTMLInputElement && BUTTON_INPUTS.has(control.type) ? control.value : '',
      isControl && !(el instanceof HTMLLabelElement) ? '' : text,
      control.getAttribute('name'),
    ];
    const info: ElementInfo = { role, name: clean(named.find((n) => n && /\S/.test(n)) ?? '', limits.attrChars) };
    const secret =
      control.hasAttribute('data-private') || (control instanceof HTMLInputElement && control.type === 'password');
    if (role === 'textbox') {
      const value =
        control instanceof HTMLInputElement || control instanceof HTMLTextAreaElement
          ? control.value
          : el instanceof HTMLElement && el.isContentEditable
            ? ownText(el)
            : (el.getAttribute('aria-valuetext') ?? '');
      if (value) info.value = secret ? '•••' : clean(value, limits.attrChars);
      if ((control as HTMLInputElement).readOnly || el.getAttribute('aria-readonly') === 'true') info.readonly = true;
      const placeholder = clean(control.getAttribute('placeholder') ?? '', limits.attrChars);
      if (!value && placeholder && placeholder !== info.name) info.hint = placeholder;
      // A date input takes only this form, whatever the page shows in it.
      else if (!value && control instanceof HTMLInputElement && control.type === 'date') info.hint = 'YYYY-MM-DD';
    }
    if (control instanceof HTMLInputElement && CHECKABLE.has(control.type)) info.checked = control.checked;
    else if (el.getAttribute('aria-checked')) info.checked = el.getAttribute('aria-checked') === 'true';
    else if (role === 'tab' || role === 'option')
      if (el.getAttribute('aria-selected')) info.checked = el.getAttribute('aria-selected') === 'true';
    if (control instanceof HTMLSelectElement) {
      info.options = Array.from(control.options)
        .slice(0, limits.options)
        .map((o) => clean(o.label, limits.attrChars));
      const chosen = Array.from(control.selectedOptions, (o) => clean(o.label, limits.attrChars)).join(', ');
      if (chosen) info.value = chosen;
    } else if (control instanceof HTMLInputElement && control.type === 'file') {
      const names = Array.from(control.files ?? [], (f) => f.name).join(', ');
      if (names) info.value = clean(names, limits.attrChars);
    }
    if ((control as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true') info.disabled = true;
    const expanded = el.getAttribute('aria-expanded');
    if (expanded) info.expanded = expanded === 'true';
    if ((control as HTMLInputElement).required || el.getAttribute('aria-required') === 'true') info.required = true;
    const submitter =
      (control instanceof HTMLButtonElement && control.type === 'submit') ||
      (control instanceof HTMLInputElement && (control.type === 'submit' || control.type === 'image'));
    const form = submitter ? (control as HTMLButtonElement | HTMLInputElement).form : null;
    if (form && !form.noValidate && !(control as HTMLButtonElement).formNoValidate && form.matches(':invalid'))
      info.incomplete = true;
    // A form of text boxes alone, every one empty (a search box, a sign-in): sending it sends nothing.
    if (form) {
      const fields = Array.from(form.elements).filter(
        (f) =>
          (f instanceof HTMLInputElement && f.type !== 'hidden' && !BUTTON_INPUTS.has(f.type)) ||
          f instanceof HTMLTextAreaElement ||
          f instanceof HTMLSelectElement,
      ) as Array<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>;
      const texts = fields.filter(
        (f) => !(f instanceof HTMLSelectElement) && !CHECKABLE.has(f.type) && f.type !== 'file',
      );
      // A value the page shows as a chip (a tag: its text, a remove button, a hidden input) is something to send.
      const chips = Array.from(form.elements).some(
        (f) =>
          f instanceof HTMLInputElement &&
          f.type === 'hidden' &&
          f.value !== '' &&
          f.parentElement !== form &&
          !!f.parentElement?.textContent?.trim(),
      );
      if (texts.length > 0 && texts.length === fields.length && texts.every((f) => f.value === '') && !chips)
        info.incomplete = true;
    }
    if (role === 'link' && el instanceof HTMLAnchorElement) {
      const href = el.getAttribute('href')?.trim() ?? '';
      // A link of "#" or "javascript:" is a button in disguise: it is not a way to this page.
      const way = href !== '' && !href.startsWith('#') && !/^javascript:/i.test(href);
      const here = (url: string) => url.split('#')[0] === location.href.split('#')[0];
      if (el.getAttribute('aria-current') === 'page' || (way && !el.hash && here(el.href))) info.current = true;
    }
    // A button of a row or a list entry ("Delete", "Edit") is told apart by the entry's own words: its
    // text outside the controls in it (a row's first cell), when it has any.
    const entry = el.closest('tr, li, [role=row], [role=listitem], article');
    if (entry && entry !== el) {
      const CONTROLS = 'a, button, input, select, textarea, label, [role=button], [role=link]';
      const texts: string[] = [];
      const walker = document.createTreeWalker(entry, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node && texts.join(' ').length < 80; node = walker.nextNode()) {
        const text = node.nodeValue?.trim();
        if (text && !node.parentElement?.closest(CONTROLS)) texts.push(text);
      }
      const words = clean(texts.join(' '), 50);
      if (words && words !== info.name) info.context = words;
    }
    // A choice of a group ("4" of "How fast was the delivery?") is told apart by the group's name.
    if (!info.context && (role === 'radio' || role === 'checkbox')) {
      const group = el.closest('fieldset, [role=radiogroup], [role=group]');
      const legend =
        group?.querySelector(':scope > legend')?.textContent ??
        group?.getAttribute('aria-label') ??
        (group ? labelledBy(group) : '');
      const words = clean(legend ?? '', 50);
      if (words && words !== info.name) info.context = words;
    }
    return info;
  };

  /** The element's line, and its key: the line less the state a model changes (value, checked). */
  const describe = (el: Element, tag: string): { line: string; key: string; info: ElementInfo } => {
    let identity = '';
    let state = '';
    let text = '';
    let closes = true;
    const role = el.getAttribute('role');
    if (role && tag !== 'input') identity += attr('role', role);
    if (el instanceof HTMLInputElement) {
      closes = false;
      const type = el.type;
      if (type !== 'text') identity += attr('type', type);
      if (el.name) identity += attr('name', el.name);
      if (el.placeholder) identity += attr('placeholder', el.placeholder);
      if (BUTTON_INPUTS.has(type)) identity += attr('value', el.value || el.alt || type);
      else if (CHECKABLE.has(type)) state += ` checked=${el.checked}`;
      else if (type === 'file') {
        if (el.accept) identity += attr('accept', el.accept);
        if (el.multiple) identity += ' multiple';
        const names = Array.from(el.files ?? [], (f) => f.name).join(', ');
        if (names) state += attr('files', names);
        if (!shown(el)) identity += ' hidden';
      } else if (type === 'password' || el.hasAttribute('data-private')) {
        // A password, or a field a secret was filled into: that it holds something, never what.
        if (el.value) state += ' value=•••';
      } else if (el.value) state += attr('value', el.value);
    } else if (el instanceof HTMLTextAreaElement) {
      if (el.name) identity += attr('name', el.name);
      if (el.placeholder) identity += attr('placeholder', el.placeholder);
      if (el.value) state += el.hasAttribute('data-private') ? ' value=•••' : attr('value', el.value);
    } else if (el instanceof HTMLSelectElement) {
      if (el.name) identity += attr('name', el.name);
      if (el.multiple) identity += ' multiple';
      const options = Array.from(el.options);
      const listed = options.slice(0, limits.options).map((o) => clean(o.label, limits.attrChars));
      if (options.length > limits.options) listed.push(`… ${options.length - limits.options} more`);
      text = listed.join(' | ');
      const chosen = Array.from(el.selectedOptions, (o) => clean(o.label, limits.attrChars)).join(', ');
      if (chosen) state += attr('value', chosen);
    } else if (el instanceof HTMLElement && el.isContentEditable) {
      identity += ' contenteditable';
      const typed = ownText(el);
      if (typed) state += attr('value', typed);
    } else {
      text = ownText(el);
    }
    const label = el.getAttribute('aria-label');
    if (label && clean(label, limits.attrChars) !== text) identity += attr('aria-label', label);
    if (!text && !label && el.getAttribute('title')) identity += attr('title', el.getAttribute('title') ?? '');
    for (const name of ['aria-checked', 'aria-selected', 'aria-expanded']) {
      const value = el.getAttribute(name);
      if (value) state += attr(name, value);
    }
    if ((el as HTMLButtonElement).disabled || el.getAttribute('aria-disabled') === 'true') state += ' disabled';
    const line = closes ? `<${tag}${identity}${state}>${text}</${tag}>` : `<${tag}${identity}${state}>`;
    return { line, key: `${tag}${identity}|${text}`, info: infoOf(el, tag, text) };
  };

  const frameLine = (el: Element, tag: string): string => {
    let line = `<${tag}`;
    for (const name of ['name', 'title']) {
      const value = el.getAttribute(name);
      if (value) line += attr(name, value);
    }
    const src = (el as HTMLIFrameElement).src;
    if (src) {
      try {
        const url = new URL(src);
        line += attr('src', `${url.origin}${url.pathname}`);
      } catch {
        // An unparsable src names nothing worth showing.
      }
    }
    return `${line}>`;
  };

  const childrenOf = (node: Node): { nodes: ArrayLike<Node>; deeper: boolean } => {
    if (node instanceof Element && node.shadowRoot) {
      shadowRoots.push(node.shadowRoot);
      return { nodes: node.shadowRoot.childNodes, deeper: true };
    }
    if (node instanceof HTMLSlotElement) {
      const assigned = node.assignedNodes();
      return { nodes: assigned.length > 0 ? assigned : node.childNodes, deeper: false };
    }
    return { nodes: node.childNodes, deeper: false };
  };

  const walk = (node: Node, depth: number, level: number, inside: boolean, textShown: boolean): void => {
    if (level > limits.levels) return;
    const { nodes, deeper } = childrenOf(node);
    const childDepth = deeper ? depth + 1 : depth;
    for (let i = 0; i < nodes.length; i++) {
      if (++visits > limits.visits) {
        cut++;
        return;
      }
      const child = nodes[i];
      if (!child) continue;
      if (child.nodeType === Node.TEXT_NODE) {
        if (!inside && textShown) addText(child.nodeValue ?? '', childDepth);
        continue;
      }
      if (!(child instanceof Element)) continue;
      const tag = child.localName;
      if (SKIP.has(tag) || tag === 'svg') continue;
      if (child.getAttribute('aria-hidden') === 'true' || child.hasAttribute('inert')) continue;
      if (!rendered(child)) continue;
      const block = BLOCK.has(tag);
      if (block) flush();
      else if (CELLS.has(tag) && pending.length > 0) addText('|', childDepth);
      if (tag === 'iframe' || tag === 'frame') {
        if (shown(child)) {
          flush();
          push({ kind: 'frame', depth: childDepth, line: frameLine(child, tag), slot: frames.push(child) - 1 });
        }
        continue;
      }
      const visible = shown(child);
      if (visible && interactive(child, tag)) {
        flush();
        const { line, key, info } = describe(child, tag);
        if (push({ kind: 'element', depth: childDepth, line, key, slot: elements.length, info })) elements.push(child);
        if (tag === 'select' || tag === 'textarea' || tag === 'input') continue;
        walk(child, childDepth + 1, level + 1, true, visible);
        flush();
        continue;
      }
      walk(child, childDepth, level + 1, inside, visible);
      if (block) flush();
    }
  };

  // An open modal dialog makes the rest of the page inert: only the dialog is there to act on.
  const modal =
    Array.from(document.querySelectorAll('dialog')).find((d) => d.matches(':modal')) ??
    Array.from(document.querySelectorAll('[aria-modal=true]')).find((d) => shown(d));
  walk(modal ?? document.documentElement, 0, 0, false, true);
  flush();

  // A file input is often styled away behind a button: attach_file needs it all the same.
  for (const root of [document, ...shadowRoots]) {
    for (const input of Array.from(root.querySelectorAll('input[type=file]'))) {
      if (elements.includes(input) || input.closest('[aria-hidden=true]')) continue;
      if (modal && !modal.contains(input)) continue;
      const { line, key, info } = describe(input, 'input');
      if (push({ kind: 'element', depth: 0, line, key, slot: elements.length, info })) elements.push(input);
    }
  }

  const page = document.scrollingElement ?? document.documentElement;
  const above = Math.max(0, Math.round(page.scrollTop));
  const below = Math.max(0, Math.round(page.scrollHeight - page.clientHeight - page.scrollTop));
  return { items, elements, frames, scroll: { above, below }, cut, modal: modal !== undefined };
}
