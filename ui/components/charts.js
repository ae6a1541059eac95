// Time-series charts (uPlot, bundled): one figure per metric, a caption that says what it shows,
// and the numbers as a table for screen readers and for copying.
import uPlot from 'uplot'
import 'uplot/dist/uPlot.min.css'
import { h } from '../lib/dom.js'
import { fmtUsd } from '../lib/format.js'

const PALETTE = ['--chart-1', '--chart-2', '--chart-3', '--chart-4']
const FALLBACK = ['#2f6fde', '#1f9d55', '#d64545', '#c98a1b']

function colour(i) {
  const v = getComputedStyle(document.documentElement).getPropertyValue(PALETTE[i % PALETTE.length]).trim()
  return v || FALLBACK[i % FALLBACK.length]
}

const dayTs = (d) => Date.parse(`${d}T00:00:00Z`) / 1000

/**
 * A line chart over UTC days. `series`: [{ label, values (numbers or null) }]; `format` formats a
 * value for the table and the legend, `axisFormat` (default: `format`) for the axis, `axisSize` its
 * width in px. The figure sizes itself to its container.
 */
export function dayChart({ title, dates, series, format = (v) => String(v), axisFormat = format, axisSize = 56, bars = false }) {
  const plotBox = h('div', { class: 'chart-plot' })
  const table = h('div', { class: 'sr-only' }, h('table', null,
    h('caption', null, title),
    h('thead', null, h('tr', null, h('th', { scope: 'col' }, 'Day'), series.map((s) => h('th', { scope: 'col' }, s.label)))),
    h('tbody', null, dates.map((d, i) => h('tr', null, h('th', { scope: 'row' }, d), series.map((s) => h('td', null, s.values[i] == null ? '—' : format(s.values[i]))))))))
  const fig = h('figure', { class: 'chart card' }, h('figcaption', null, title), plotBox, table)
  let plot = null
  const draw = () => {
    const width = Math.max(260, plotBox.clientWidth || 600)
    if (plot) { plot.setSize({ width, height: 200 }); return }
    const text = getComputedStyle(document.documentElement).getPropertyValue('--muted').trim() || '#667'
    plot = new uPlot({
      width, height: 200,
      scales: { x: { time: true } },
      legend: { show: true },
      axes: [
        { stroke: text, grid: { show: false } },
        { stroke: text, size: axisSize, values: (_u, vals) => vals.map((v) => axisFormat(v)) },
      ],
      series: [{}, ...series.map((s, i) => ({
        label: s.label, stroke: colour(i), width: 2, fill: bars ? `${colour(i)}55` : undefined,
        paths: bars ? uPlot.paths.bars({ size: [0.6, 40] }) : undefined, points: { show: dates.length <= 31 },
        value: (_u, v) => (v == null ? '—' : format(v)),
      }))],
    }, [dates.map(dayTs), ...series.map((s) => s.values)], plotBox)
  }
  // Drawn once the figure is in the page (its width is known), and again when that width changes.
  const ro = new ResizeObserver(() => { if (fig.isConnected) draw() })
  ro.observe(plotBox)
  return fig
}

/** 7 / 30 / 90 days, as links that keep the rest of the page's hash. */
export function rangePicker(current, hrefFor) {
  return h('nav', { class: 'row', 'aria-label': 'Range' }, [7, 30, 90].map((d) =>
    h('a', { href: hrefFor(d), class: d === current ? 'button small primary' : 'button small', 'aria-current': d === current ? 'page' : undefined }, `${d} days`)))
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 })

/** The six charts both dashboards show, from a /stats/daily answer. */
export function activityCharts(daily) {
  const dates = daily.series.map((e) => e.date)
  const col = (f) => daily.series.map(f)
  return [
    dayChart({ title: 'Tasks per day by status', dates, series: [
      { label: 'completed', values: col((e) => e.tasks.completed) }, { label: 'failed', values: col((e) => e.tasks.failed) },
      { label: 'running', values: col((e) => e.tasks.processing) }, { label: 'held', values: col((e) => e.tasks.pendingApproval) },
    ], format: (v) => String(Math.round(v)) }),
    dayChart({ title: 'Credits spent per day', dates, bars: true, series: [{ label: 'credits', values: col((e) => e.creditsSpent) }], format: (v) => String(Math.round(v)) }),
    dayChart({ title: 'Verification rate', dates, series: [{ label: 'verified / completed', values: col((e) => (e.tasks.completed ? e.verificationRate * 100 : null)) }], format: (v) => `${Math.round(v)} %` }),
    dayChart({ title: 'Latency per day', dates, series: [
      { label: 'p50', values: col((e) => e.latencyP50Ms) }, { label: 'p95', values: col((e) => e.latencyP95Ms) },
    ], format: (v) => `${Math.round(v)} ms` }),
    dayChart({ title: 'Tokens per day', dates, series: [
      { label: 'prompt', values: col((e) => e.tokens.prompt) }, { label: 'completion', values: col((e) => e.tokens.completion) },
    ], format: (v) => Math.round(v).toLocaleString('en-US'), axisFormat: (v) => compact.format(v) }),
    dayChart({ title: 'Estimated cost per day (USD)', dates, bars: true, series: [{ label: 'cost', values: col((e) => e.costUsd) }], format: fmtUsd, axisSize: 76 }),
  ]
}
