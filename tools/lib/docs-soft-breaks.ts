// Redoc's search joins the lines of a paragraph without a space: "Once the dashboard\nenables Checkout" was
// found, and shown in the excerpt, as "dashboardenables" (docs QA). A newline inside a paragraph (a soft
// line break) renders as a space anyway, so the docs' copy of each description has its soft breaks written
// as spaces: the page renders the same and search keeps the words apart. The newlines are found by a
// CommonMark parser with GFM (tables), so one that ends a list item, a table row, a heading or a code line is
// never touched. What search still joins, the end of one paragraph and the start of the next, is Redoc's.
import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';
import { isObject, type Json } from '@payments/spec';

interface MdNode {
  type: string;
  value?: string;
  children?: MdNode[];
  position?: { start: { offset?: number }; end: { offset?: number } };
}

/** A soft break with the indentation (and a block quote's `>` markers) of the line it continues to. */
const SOFT_BREAK = /[ \t]*\r?\n(?:[ \t]*>)*[ \t]*/g;

/** `markdown` with each soft line break written as one space. */
export function unwrapSoftBreaks(markdown: string): string {
  if (!markdown.includes('\n')) return markdown;
  const spans: [start: number, end: number][] = [];
  const visit = (node: MdNode): void => {
    const { start, end } = node.position ?? { start: {}, end: {} };
    if (node.type === 'text' && node.value?.includes('\n') && start.offset !== undefined && end.offset !== undefined) spans.push([start.offset, end.offset]);
    node.children?.forEach(visit);
  };
  visit(fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as MdNode);
  let out = markdown;
  for (const [start, end] of spans.reverse()) out = out.slice(0, start) + out.slice(start, end).replace(SOFT_BREAK, ' ') + out.slice(end);
  return out;
}

/** Values that are data, not prose: a `description` key inside them is a field of an example, never rewritten. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'const', 'enum', 'x-codeSamples']);

/** Every `description` of the document (not of its example data) with its soft breaks unwrapped, in place. */
export function unwrapDescriptions(node: Json): void {
  if (Array.isArray(node)) return node.forEach(unwrapDescriptions);
  if (!isObject(node)) return;
  unwrapOwnDescription(node);
  for (const [key, value] of Object.entries(node)) {
    if (!DATA_KEYS.has(key)) unwrapDescriptions(value);
    // An OpenAPI examples map: each Example Object's description is prose, its value data.
    else if (key === 'examples' && isObject(value)) for (const example of Object.values(value).filter(isObject)) unwrapOwnDescription(example);
  }
}

function unwrapOwnDescription(node: { description?: Json }): void {
  if (typeof node.description === 'string') node.description = unwrapSoftBreaks(node.description);
}
