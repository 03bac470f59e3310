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

/**
 * WCAG 2.0, 2.1 and 2.2 at A and AA, and axe's best practices. axe's default run leaves the WCAG 2.2 rules
 * out (target-size, 2.5.8, is tagged wcag22aa only).
 */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22a', 'wcag22aa', 'best-practice'];

/**
 * axe on the whole document, or only on the elements `include` selects (e.g. one section of Redoc's page,
 * when the rest of it was checked in an earlier view: the sidebar and header are the same on every route).
 */
export async function runAxe(page: Page, view: string, include?: string[]): Promise<AxeViolation[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: axeSource });
  const found = await page.evaluate(async ({ tags, include }) => {
    const axe = (window as unknown as { axe: { run(context: unknown, options: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[] }> } }).axe;
    // resultTypes: only violations get their full node lists (passes and incompletes are counted, not detailed).
    const result = await axe.run(include ? { include: include.map((s) => [s]) } : document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] });
    return result.violations.map((v) => ({
      rule: v.id,
      impact: v.impact ?? 'unknown',
      help: v.help,
      nodes: v.nodes.length,
      examples: v.nodes.slice(0, 3).map((n) => `${n.target.join(' ')}: ${(n.failureSummary ?? '').replace(/\s+/g, ' ').slice(0, 200)}`),
    }));
  }, { tags: AXE_TAGS, include });
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

/** A Markdown table: one row per view, its critical/serious/moderate/minor counts and the rules found. */
export function axeTable(views: string[], violations: AxeViolation[]): string {
  const rows = views.map((view) => {
    const own = violations.filter((v) => v.view === view);
    const count = (impact: string) => own.filter((v) => v.impact === impact).length;
    const rules = own.map((v) => `${v.impact} ${v.rule} (${v.nodes})`).join(', ') || 'none';
    return `| ${view} | ${count('critical')} | ${count('serious')} | ${count('moderate')} | ${count('minor')} | ${rules} |`;
  });
  return [`axe-core with ${AXE_TAGS.join(', ')}`, '', '| View | Critical | Serious | Moderate | Minor | Rules (nodes) |', '|---|---|---|---|---|---|', ...rows].join('\n');
}
