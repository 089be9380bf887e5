import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip } from 'chart.js'

/** Only the parts of Chart.js the Statistics page draws with: bars, a line, their axes, tooltip and legend. */
Chart.register(BarController, BarElement, LineController, LineElement, PointElement, CategoryScale, LinearScale, Tooltip, Legend)

export interface Series {
  label: string
  colour: string
  data: Array<number | null>
  /** Bars of one stack pile up (outgoing statuses). */
  stack?: string
}
