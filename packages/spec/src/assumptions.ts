// Every conventional choice the contract makes where the provider's document is silent: nodes marked
// `x-assumed: true`, with their JSON pointer in the bundled document and their reason.
import { isObject, type Json, type OpenApiDocument } from './document.ts';

export interface Assumption {
  pointer: string;
  reason: string;
}

export function assumptions(doc: OpenApiDocument): Assumption[] {
  const found: Assumption[] = [];
  const visit = (node: Json, pointer: string): void => {
    if (Array.isArray(node)) {
      node.forEach((child, i) => visit(child, `${pointer}/${i}`));
      return;
    }
    if (!isObject(node)) return;
    if (node['x-assumed'] === true) found.push({ pointer: pointer || '/', reason: String(node['x-assumed-reason'] ?? '') });
    for (const [key, child] of Object.entries(node)) visit(child, `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
  };
  visit(doc, '');
  return found;
}
