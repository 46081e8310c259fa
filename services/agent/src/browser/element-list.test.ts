import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type FrameNode, renderList } from './element-list.js';
import type { PageItem } from './page-script.js';

const button = (text: string, slot: number, depth = 0): PageItem => ({
  kind: 'element',
  depth,
  line: `<button>${text}</button>`,
  key: `button|${text}`,
  slot,
  info: { role: 'button', name: text },
});

const frame = (key: string, items: PageItem[], children = new Map<number, FrameNode<string>>()): FrameNode<string> => ({
  key,
  items,
  cut: 0,
  children,
  source: key || 'page',
});

describe('renderList', () => {
  it('numbers elements across frames in page order, each frame indented under its iframe', () => {
    const inner = frame('https://other.example/pay', [{ kind: 'text', depth: 0, text: 'Card' }, button('Pay', 0)]);
    const page = frame(
      '',
      [button('Back', 0), { kind: 'frame', depth: 1, line: '<iframe title=Pay>', slot: 0 }, button('Help', 1)],
      new Map([[0, inner]]),
    );
    const list = renderList(page, undefined, 10_000);
    assert.equal(
      list.elements,
      '[1]<button>Back</button>\n  <iframe title=Pay>\n    Card\n    [2]<button>Pay</button>\n[3]<button>Help</button>',
    );
    assert.deepEqual(list.targets, [
      { source: 'page', slot: 0 },
      { source: 'https://other.example/pay', slot: 0 },
      { source: 'page', slot: 1 },
    ]);
  });

  it('stars an element new since the previous list, a repeat of an old one included', () => {
    const before = renderList(frame('', [button('Add', 0)]), undefined, 10_000);
    const after = renderList(
      frame('', [button('Add', 0), button('Add', 1), button('Undo', 2)]),
      new Set(before.keys),
      10_000,
    );
    assert.equal(after.elements, '[1]<button>Add</button>\n*[2]<button>Add</button>\n*[3]<button>Undo</button>');
    assert.equal(after.plain, '[1]<button>Add</button>\n[2]<button>Add</button>\n[3]<button>Undo</button>');
  });

  it('stops at its bound, indexing only what it shows, and says what it cut', () => {
    const items = Array.from({ length: 50 }, (_, i) => button(`Button ${i}`, i));
    const list = renderList({ ...frame('', items), cut: 7 }, undefined, 300);
    assert.ok(list.elements.length < 400);
    assert.equal(list.targets.length, list.keys.length);
    assert.ok(list.targets.length < 50);
    assert.match(
      list.elements,
      new RegExp(`\\n… the list stops here: ${50 - list.targets.length} more elements and 7 more lines`),
    );
  });
});
