// axe-core (npm) in a page driven by playwright-core: injected from node_modules (no CDN), run on the whole
// document as it is rendered, reduced to what a report needs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  view: string;
  rule: string;
  impact: string;
  nodes: number;
  help: string;
  /** A few offending nodes: selector and axe's message. */
  examples: string[];
}

export async function runAxe(page: Page, view: string): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }> } }).axe;
    const result = await axe.run();
    return result.violations.map((v) => ({
      rule: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      nodes: v.nodes.length,
      examples: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 200)}`),
    }));
  });
  return found.map((v) => ({ view, ...v }));
}

/** One line per view and rule, for the test's output and the report. */
export function axeSummary(views: string[], violations: AxeViolation[]): string {
  const lines = ['axe-core summary (impact, rule, nodes) per view:'];
  for (const view of views) {
    const own = violations.filter((v) => v.view === view);
    const counts = ['critical', 'serious', 'moderate', 'minor'].map((impact) => `${impact} ${own.filter((v) => v.impact === impact).length}`).join(', ');
    lines.push(`  ${view}: ${counts}`);
    for (const v of own) lines.push(`    ${v.impact} ${v.rule} (${v.nodes} node${v.nodes === 1 ? '' : 's'})`);
  }
  return lines.join('\n');
}
