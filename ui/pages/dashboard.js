// The operator's dashboard: this month at a glance (credits, tasks, verification, latency, with
// the change against last month), today's tokens and estimated cost, and the last 7/30/90 days in
// charts.
import { activityCharts, rangePicker } from '../components/charts.js'
import { pageHead, statCard, trend } from '../components/layout.js'
import { api } from '../lib/api.js'
import { fill, h } from '../lib/dom.js'
import { fmtInt, fmtUsd, intParam } from '../lib/format.js'
import { route } from '../lib/router.js'

route('dashboard', {
  title: 'Dashboard', nav: 'Dashboard', group: 'operate', order: 5,
  render: async (ctx) => {
    const days = [7, 30, 90].includes(intParam(ctx.params, 'days', 30)) ? intParam(ctx.params, 'days', 30) : 30
    const [d, daily] = await Promise.all([api('GET', '/api/v1/operator/dashboard'), api('GET', `/api/v1/operator/stats/daily?days=${days}`)])
    if (!ctx.alive()) return
    const today = daily.series[daily.series.length - 1]
    const tokens = daily.series.reduce((n, e) => n + e.tokens.total, 0)
    const cost = daily.series.reduce((n, e) => n + Math.round(e.costUsd * 1e6), 0) / 1e6 // whole millionths: no float drift
    fill(ctx.view,
      pageHead('Dashboard', `${daily.from} to ${daily.to} (UTC)`, rangePicker(days, (n) => `#/dashboard?days=${n}`)),
      h('div', { class: 'stats' },
        statCard('Credits left', `${fmtInt(d.creditsRemaining)} / ${fmtInt(d.creditsTotal)}`, `resets in ${d.creditsResetDays} days`),
        statCard('Tasks this month', fmtInt(d.tasksThisMonth), trend(d.tasksTrend)),
        statCard('Verification rate', `${Math.round(d.verificationRate * 10) / 10} %`, trend(d.verificationTrend, ' pts')),
        statCard('Average latency', `${Math.round(d.avgLatencyMs)} ms`, trend(d.latencyTrend, ' ms', true)),
        statCard('Agents', fmtInt(d.agentCount)),
        statCard('Tokens today', fmtInt(today.tokens.total), `${fmtInt(tokens)} in ${days} days`),
        statCard('Estimated cost today', fmtUsd(today.costUsd), `${fmtUsd(cost)} in ${days} days`)),
      h('div', { class: 'charts' }, activityCharts(daily)))
  },
})
