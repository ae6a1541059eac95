// Public statistics: totals and the last 7/30/90 days in charts (no account needed).
import { activityCharts, rangePicker } from '../components/charts.js'
import { pageHead, statCard } from '../components/layout.js'
import { api } from '../lib/api.js'
import { fill, h } from '../lib/dom.js'
import { fmtInt, intParam } from '../lib/format.js'
import { route } from '../lib/router.js'

route('stats', {
  title: 'Statistics', auth: 'any', nav: 'Statistics', group: 'public', order: 85,
  render: async (ctx) => {
    const days = [7, 30, 90].includes(intParam(ctx.params, 'days', 30)) ? intParam(ctx.params, 'days', 30) : 30
    const get = (p) => api('GET', p, undefined, { auth: false })
    const [s, daily] = await Promise.all([get('/api/v1/public/stats'), get(`/api/v1/public/stats/daily?days=${days}`)])
    if (!ctx.alive()) return
    fill(ctx.view,
      pageHead('Statistics', `This appliance, all operators · ${daily.from} to ${daily.to} (UTC)`, rangePicker(days, (d) => `#/stats?days=${d}`)),
      h('div', { class: 'stats' },
        statCard('Tasks', fmtInt(s.totalTasks)), statCard('Agents', fmtInt(s.totalAgents)), statCard('Operators', fmtInt(s.totalOperators)),
        statCard('Verification rate', `${(s.verificationRate * 100).toFixed(1)} %`), statCard('Average latency', `${Math.round(s.avgLatencyMs)} ms`)),
      h('div', { class: 'charts' }, activityCharts(daily)))
  },
})
