// The docs' copy of the descriptions has no soft line break (docs QA: Redoc's search showed "the dashboard\nenables"
// as "dashboardenables"): each is written as a space, and nothing else of the Markdown changes.
import { describe, expect, it } from 'vitest';
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { isObject, loadSpec, type Json } from '@payments/spec';
import { docsSource } from '../../tools/lib/docs.ts';
import { unwrapSoftBreaks } from '../../tools/lib/docs-soft-breaks.ts';

describe('unwrapSoftBreaks', () => {
  it('writes a newline inside a paragraph, a list item, a link or a block quote as one space', () => {
    expect(unwrapSoftBreaks('Once the dashboard\nenables Checkout.')).toBe('Once the dashboard enables Checkout.');
    expect(unwrapSoftBreaks('- an item that\n  goes on\n- the next')).toBe('- an item that goes on\n- the next');
    expect(unwrapSoftBreaks('see [the\nguide](#/limits) and `code`\nafter')).toBe('see [the guide](#/limits) and `code` after');
    expect(unwrapSoftBreaks('> quoted\n> and more')).toBe('> quoted and more');
    expect(unwrapSoftBreaks('1. **step**: does\n   this.\n\n   Outputs: x')).toBe('1. **step**: does this.\n\n   Outputs: x');
  });

  it('leaves what is not a soft break: paragraphs, hard breaks, headings, tables, code', () => {
    const untouched = [
      'one paragraph\n\nanother',
      'a hard break  \nkept',
      'a hard break\\\nkept',
      '# Heading\ntext under it',
      '| a | b |\n|---|---|\n| 1 | 2 |',
      '```json\n{\n  "a": 1\n}\n```',
      '    indented code\n    second line',
      '- one\n- two',
      'text\n<div>html</div>',
    ];
    for (const markdown of untouched) expect(unwrapSoftBreaks(markdown), markdown).toBe(markdown);
  });
});

/** The text nodes of a description that hold a newline: its soft breaks. */
function softBreaks(markdown: string): string[] {
  const found: string[] = [];
  const visit = (node: { type: string; value?: string; children?: unknown[] }): void => {
    if (node.type === 'text' && node.value?.includes('\n')) found.push(node.value);
    (node.children as (typeof node)[] | undefined)?.forEach(visit);
  };
  visit(fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }));
  return found;
}

it('no description of the docs\' source holds a soft break (guides, operations, schemas, workflow pages)', () => {
  const left: string[] = [];
  let descriptions = 0;
  const walk = (node: Json, at: string): void => {
    if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${at}/${i}`));
    if (!isObject(node)) return;
    if (typeof node.description === 'string') {
      descriptions++;
      for (const text of softBreaks(node.description)) left.push(`${at}: ${JSON.stringify(text.slice(0, 80))}`);
    }
    for (const [key, value] of Object.entries(node)) if (key !== 'example' && key !== 'default') walk(value, `${at}/${key}`);
  };
  walk(docsSource(loadSpec()), '');
  expect(descriptions).toBeGreaterThan(100);
  expect(left).toEqual([]);
});
