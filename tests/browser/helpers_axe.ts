import app from '@adonisjs/core/services/app'
import type { Page } from 'playwright-core'

/** One serious or critical finding of axe-core: its rule and the elements it names. */
export interface AxeFinding {
  rule: string
  impact: string
  targets: string[]
}

interface AxeResults {
  violations: Array<{ id: string; impact: string | null; nodes: Array<{ target: unknown[] }> }>
}

/**
 * axe-core's serious and critical violations on what the page shows now. The script is the
 * installed package's own build, put into the page once per document; moderate and minor
 * findings are left out (the aim of docs/dashboard.md "Accessibility" is none serious or worse).
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) {
    await page.addScriptTag({ path: app.makePath('node_modules', 'axe-core', 'axe.min.js') })
  }
  const results = (await page.evaluate(`axe.run(document, { resultTypes: ['violations'] })`)) as AxeResults
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({
      rule: violation.id,
      impact: violation.impact!,
      targets: violation.nodes.map((node) => node.target.map(String).join(' >> ')),
    }))
}

/** The findings of several views as lines a reader can act on: view, rule, impact, elements. */
export function describeFindings(found: Map<string, AxeFinding[]>): string[] {
  const lines: string[] = []
  for (const [view, findings] of found) {
    for (const finding of findings) lines.push(`${view}: ${finding.rule} (${finding.impact}) at ${finding.targets.join(' | ')}`)
  }
  return lines
}
