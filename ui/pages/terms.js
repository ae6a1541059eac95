// #/terms (admins): Terms of Service versions, and publishing a new one.
import { dateCell } from '../components/cells.js'
import { field, submitting, textarea } from '../components/forms.js'
import { pageHead } from '../components/layout.js'
import { dataTable } from '../components/table.js'
import { api } from '../lib/api.js'
import { append, fill, h } from '../lib/dom.js'
import { route } from '../lib/router.js'

route('terms', {
  title: 'Terms of Service versions', nav: 'Terms of Service', group: 'admin', order: 95, visible: (me) => !!(me && me.flags && me.flags.admin),
  async render(ctx) {
    append(ctx.view, pageHead('Terms of Service', 'Publishing a version makes it current; operators accept it on their Compliance page (and must, when TASKGATE_TOS_REQUIRED=1).'))
    const list = h('div', null, h('p', { class: 'muted' }, 'Loading…'))
    const form = h('form', { class: 'form', 'aria-label': 'Publish a ToS version' },
      h('div', { class: 'form-row' }, field('Version', h('input', { type: 'text', name: 'version', required: true, maxlength: 32, placeholder: 'e.g. 2' }))),
      field('Text', textarea({ name: 'text', required: true, rows: 8 })),
      h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Publish')))
    append(ctx.view, h('div', { class: 'card' }, h('h2', null, 'Versions'), list), h('div', { class: 'card' }, h('h2', null, 'Publish a new version'), form))
    async function refresh() {
      const versions = await api('GET', '/api/v1/admin/tos')
      if (!ctx.alive()) return
      const items = Array.isArray(versions) ? versions : versions.data || []
      fill(list, items.length
        ? dataTable(['Version', 'Published', 'Current'],
          items.map((v) => h('tr', null, h('td', null, h('code', null, v.version)), h('td', null, dateCell(v.createdAt || v.publishedAt)), h('td', null, v.current ? h('span', { class: 'badge green' }, 'current') : ''))))
        : h('p', { class: 'empty muted' }, 'No versions.'))
    }
    submitting(form, ctx, async (v) => {
      await api('POST', '/api/v1/admin/tos', { version: v.version.trim(), text: v.text })
      form.reset()
      ctx.flash(`Version ${v.version.trim()} published.`)
      await refresh()
    })
    await refresh()
  },
})
