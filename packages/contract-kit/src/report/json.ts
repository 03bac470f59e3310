// The JSON report: the Report object as it is (stable field names, documented in types.ts).
import type { Report } from '../types.ts';

export function toJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
