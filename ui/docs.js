'use strict'
;(function () {
  // Everything from the document is written with textContent/attributes; nothing goes through innerHTML.
  function h(tag, attrs) {
    const el = document.createElement(tag)
    if (attrs) for (const k in attrs) {
      const v = attrs[k]
      if (v === undefined || v === null || v === false) continue
      if (k === 'class') el.className = v
      else if (k.slice(0, 2) === 'on' && typeof v === 'function') el.addEventListener(k.slice(2), v)
      else el.setAttribute(k, v === true ? '' : String(v))
    }
    for (let i = 2; i < arguments.length; i++) add(el, arguments[i])
    return el
  }
  function add(el, c) {
    if (c === undefined || c === null || c === false) return
    if (Array.isArray(c)) { c.forEach(function (x) { add(el, x) }); return }
    el.appendChild(c instanceof Node ? c : document.createTextNode(String(c)))
  }

  /** Text with `code` spans rendered as <code> (as text nodes, no HTML parsing). */
  function rich(text) {
    const out = []
    String(text || '').split(/(`[^`]+`)/).forEach(function (part) {
      if (/^`[^`]+`$/.test(part)) out.push(h('code', null, part.slice(1, -1)))
      else if (part) out.push(part)
    })
    return out
  }

  let DOC = null
  const AUTH = {
    none: ['Public', 'No credentials needed.'],
    optional: ['Optional auth', 'Works without credentials; a bearer token or API key adds context.'],
    bearer: ['Bearer token', 'Authorization: Bearer <accessToken> from POST /api/v1/auth/login.'],
    apiKey: ['API key', 'x-api-key: <key>.'],
    either: ['Bearer or API key', 'Either Authorization: Bearer <accessToken> or x-api-key: <key>.'],
    admin: ['Admin', 'Bearer token of an operator with the admin role.'],
  }
  const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options']

  // ---------------------------------------------------------------- schemas

  function resolve(s) {
    if (s && typeof s.$ref === 'string' && s.$ref.indexOf('#/') === 0) {
      let cur = DOC
      s.$ref.slice(2).split('/').forEach(function (p) { cur = cur && cur[p.replace(/~1/g, '/').replace(/~0/g, '~')] })
      return cur || s
    }
    return s
  }
  function refName(s) { return s && typeof s.$ref === 'string' ? s.$ref.split('/').pop() : null }

  const COERCE = { integer: ['integer', 'number'], numeric: ['number', 'integer'], number: ['number', 'integer'], boolean: ['boolean'] }
  /**
   * Drops the string branch that request coercion adds next to numbers/booleans
   * ({type:'string', format:'integer'} beside {type:'integer'}), flattens nested anyOf,
   * and unwraps a union left with a single branch.
   */
  function simplify(s) {
    if (!s || typeof s !== 'object' || Array.isArray(s)) return s
    const out = {}
    for (const k in s) out[k] = s[k]
    const key = out.anyOf ? 'anyOf' : (out.oneOf ? 'oneOf' : null)
    if (key) {
      let branches = []
      out[key].forEach(function (b) {
        const sb = simplify(b)
        if (sb && (sb.anyOf || sb.oneOf) && Object.keys(sb).every(function (k) { return k === 'anyOf' || k === 'oneOf' || k === 'description' })) branches = branches.concat(sb.anyOf || sb.oneOf)
        else branches.push(sb)
      })
      branches = branches.filter(function (b) {
        if (!b || b.type !== 'string' || !COERCE[b.format]) return true
        return !branches.some(function (o) { return o !== b && COERCE[b.format].indexOf(o.type) >= 0 })
      })
      delete out[key]
      if (branches.length === 1) {
        const only = branches[0]
        const merged = {}
        for (const k in only) merged[k] = only[k]
        for (const k in out) if (!(k in merged)) merged[k] = out[k]
        return merged
      }
      out[key] = branches
    }
    if (out.properties) {
      const props = {}
      for (const k in out.properties) props[k] = simplify(out.properties[k])
      out.properties = props
    }
    if (out.items && !Array.isArray(out.items)) out.items = simplify(out.items)
    if (out.additionalProperties && typeof out.additionalProperties === 'object') out.additionalProperties = simplify(out.additionalProperties)
    if (out.patternProperties) {
      const pp = {}
      for (const k in out.patternProperties) pp[k] = simplify(out.patternProperties[k])
      out.patternProperties = pp
    }
    return out
  }

  function branchesOf(s) { return s && (s.anyOf || s.oneOf) }
  function nonNull(s) {
    const br = branchesOf(s)
    if (!br) return { schema: s, nullable: false }
    const rest = br.filter(function (b) { return !(b && b.type === 'null') })
    if (rest.length === br.length) return { schema: s, nullable: false }
    if (rest.length === 1) {
      const merged = {}
      for (const k in rest[0]) merged[k] = rest[0][k]
      if (s.description && !merged.description) merged.description = s.description
      return { schema: merged, nullable: true }
    }
    return { schema: Object.assign({}, s, { anyOf: rest, oneOf: undefined }), nullable: true }
  }

  function typeStr(s, depth) {
    depth = depth || 0
    if (!s || typeof s !== 'object') return 'any'
    if (depth > 6) return '…'
    const ref = refName(s)
    if (ref) return ref
    if ('const' in s) return JSON.stringify(s.const)
    if (Array.isArray(s.enum)) return s.enum.map(function (v) { return JSON.stringify(v) }).join(' | ')
    const br = branchesOf(s)
    if (br) {
      const parts = []
      br.forEach(function (b) { const t = typeStr(b, depth + 1); if (parts.indexOf(t) < 0) parts.push(t) })
      return parts.join(' | ')
    }
    if (Array.isArray(s.type)) return s.type.join(' | ')
    if (s.type === 'array') {
      const inner = s.items ? typeStr(s.items, depth + 1) : 'any'
      return (inner.indexOf(' | ') >= 0 ? '(' + inner + ')' : inner) + '[]'
    }
    if (s.type === 'object') {
      const pp = s.patternProperties && Object.keys(s.patternProperties).length ? s.patternProperties[Object.keys(s.patternProperties)[0]] : null
      const ap = pp || (s.additionalProperties && typeof s.additionalProperties === 'object' ? s.additionalProperties : null)
      if (ap && !s.properties) return 'map<string, ' + (Object.keys(ap).length ? typeStr(ap, depth + 1) : 'any') + '>'
      return 'object'
    }
    if (s.type === 'string' && s.format) return 'string<' + s.format + '>'
    return s.type || 'any'
  }

  function constraints(s) {
    const c = []
    if (!s || typeof s !== 'object') return c
    if (s.minLength !== undefined && s.maxLength !== undefined) c.push('length ' + s.minLength + '–' + s.maxLength)
    else if (s.minLength !== undefined) c.push('min length ' + s.minLength)
    else if (s.maxLength !== undefined) c.push('max length ' + s.maxLength)
    if (s.minimum !== undefined) c.push('≥ ' + s.minimum)
    if (s.exclusiveMinimum !== undefined) c.push('> ' + s.exclusiveMinimum)
    if (s.maximum !== undefined) c.push('≤ ' + s.maximum)
    if (s.exclusiveMaximum !== undefined) c.push('< ' + s.exclusiveMaximum)
    if (s.minItems !== undefined) c.push('min items ' + s.minItems)
    if (s.maxItems !== undefined) c.push('max items ' + s.maxItems)
    if (s.minProperties !== undefined) c.push('at least ' + s.minProperties + ' field' + (s.minProperties === 1 ? '' : 's'))
    if (s.pattern) c.push('pattern ' + s.pattern)
    if (s.default !== undefined) c.push('default ' + JSON.stringify(s.default))
    if (s.additionalProperties === false) c.push('no other fields')
    return c
  }

  /** Rows for a property table: nested objects become parent.child, arrays of objects parent[].child. */
  function propRows(s, prefix, depth, rows) {
    const required = s.required || []
    const props = s.properties || {}
    Object.keys(props).forEach(function (name) {
      const raw = props[name]
      const nn = nonNull(resolve(raw))
      const ps = nn.schema
      let type = typeStr(raw)
      const desc = (raw && raw.description) || (ps && ps.description) || ''
      rows.push({ prefix: prefix, name: name, type: type, required: required.indexOf(name) >= 0, desc: desc, cons: constraints(ps) })
      if (depth >= 4 || !ps) return
      if (ps.type === 'object' && ps.properties && Object.keys(ps.properties).length) propRows(ps, prefix + name + '.', depth + 1, rows)
      else if (ps.type === 'array' && ps.items) {
        const it = nonNull(resolve(ps.items)).schema
        if (it && it.type === 'object' && it.properties) propRows(it, prefix + name + '[].', depth + 1, rows)
      }
    })
    return rows
  }

  function propTable(s) {
    const rows = propRows(s, '', 0, [])
    if (!rows.length) return h('p', { class: 'schema-note muted' }, 'An object' + (s.additionalProperties === false ? ' with no fields.' : ' (free-form).'))
    const cons = constraints(s)
    return h('div', null, cons.length ? h('p', { class: 'schema-note muted' }, 'An object: ' + cons.join(' · ') + '.') : null, h('div', { class: 'table-wrap' }, h('table', null,
      h('thead', null, h('tr', null, h('th', null, 'Field'), h('th', null, 'Type'), h('th', null, 'Description'))),
      h('tbody', null, rows.map(function (r) {
        return h('tr', null,
          h('td', { class: 'name' }, r.prefix ? h('span', { class: 'parent' }, r.prefix) : null, r.name, r.required ? h('span', { class: 'req', title: 'required' }, ' *') : null),
          h('td', { class: 'type' }, r.type),
          h('td', null, rich(r.desc), r.cons.length ? h('div', { class: 'constraints' }, r.cons.join(' · ')) : null))
      })))))
  }

  function jsonDetails(s, label) {
    return h('details', null, h('summary', null, label || 'JSON schema'), h('pre', null, h('code', null, JSON.stringify(s, null, 2))))
  }

  /** A schema as readable tables, with the raw JSON schema one click away. */
  function schemaView(raw) {
    const ref = refName(raw)
    if (ref) {
      return h('p', { class: 'schema-note' }, 'Schema ', h('a', { href: '#schema-' + ref }, ref), '.')
    }
    const s = simplify(raw)
    const wrap = h('div')
    const nn = nonNull(s)
    const base = nn.schema
    if (base.type === 'object' && (base.properties || base.additionalProperties === false)) {
      if (nn.nullable) wrap.appendChild(h('p', { class: 'schema-note muted' }, 'An object, or null:'))
      wrap.appendChild(propTable(base))
    } else if (base.type === 'array' && base.items && nonNull(resolve(base.items)).schema.type === 'object' && nonNull(resolve(base.items)).schema.properties) {
      const itemRef = refName(base.items)
      wrap.appendChild(h('p', { class: 'schema-note' }, 'An array of ', itemRef ? h('a', { href: '#schema-' + itemRef }, itemRef) : 'objects', itemRef ? '.' : ':'))
      if (!itemRef) wrap.appendChild(propTable(nonNull(base.items).schema))
    } else if (branchesOf(base) && branchesOf(base).some(function (b) { return b && (b.type === 'object' || b.type === 'array') })) {
      wrap.appendChild(h('p', { class: 'schema-note' }, 'One of:'))
      branchesOf(base).forEach(function (b, i) {
        wrap.appendChild(h('div', { class: 'variant-title' }, 'Variant ' + (i + 1) + ' — ' + typeStr(b)))
        const sub = schemaView(b)
        sub.querySelectorAll(':scope > details').forEach(function (d) { d.remove() })
        wrap.appendChild(sub)
      })
    } else {
      wrap.appendChild(h('p', { class: 'schema-note' }, h('code', null, typeStr(s)), s.description ? [' — ', rich(s.description)] : null))
    }
    wrap.appendChild(jsonDetails(s))
    return wrap
  }

  // ---------------------------------------------------------------- examples

  function example(raw, name, depth) {
    depth = depth || 0
    const s = simplify(resolve(raw))
    if (!s || depth > 5) return null
    if ('const' in s) return s.const
    if (s.default !== undefined) return s.default
    if (Array.isArray(s.enum)) return s.enum[0]
    const br = branchesOf(s)
    if (br) return example(br.find(function (b) { return b && b.type !== 'null' }) || br[0], name, depth + 1)
    switch (s.type) {
      case 'object': {
        const o = {}
        for (const k in (s.properties || {})) o[k] = example(s.properties[k], k, depth + 1)
        return o
      }
      case 'array': return s.items ? [example(s.items, name, depth + 1)] : []
      case 'integer': case 'number': return s.minimum !== undefined ? s.minimum : 1
      case 'boolean': return true
      case 'null': return null
      case 'string':
        if (s.format === 'date-time') return '2025-01-01T00:00:00Z'
        if (s.format === 'email') return 'ops@example.com'
        if (s.format === 'uri') return 'https://example.com'
        if (name === 'password') return 'correct-horse-battery'
        return name || 'string'
      default: return null
    }
  }

  function curlFor(method, path, op) {
    const base = (DOC.servers && DOC.servers[0] && DOC.servers[0].url) || location.origin
    const lines = ['curl -X ' + method.toUpperCase() + " '" + base + path + "'"]
    const auth = op['x-taskgate-auth']
    if (auth === 'bearer' || auth === 'admin' || auth === 'either') lines.push('  -H "authorization: Bearer $TASKGATE_TOKEN"')
    else if (auth === 'apiKey') lines.push('  -H "x-api-key: $TASKGATE_KEY"')
    const body = op.requestBody && op.requestBody.content && op.requestBody.content['application/json']
    if (body && body.schema) {
      lines.push("  -H 'content-type: application/json'")
      lines.push("  -d '" + JSON.stringify(example(body.schema), null, 2).replace(/'/g, "'\\''") + "'")
    }
    return lines.join(' \\\n')
  }

  // ---------------------------------------------------------------- page

  function opId(method, path, op) {
    return 'op-' + (op.operationId || (method + path).replace(/[^A-Za-z0-9]+/g, '-'))
  }

  function authBadge(op) {
    const a = op['x-taskgate-auth'] || (op.security && op.security.length ? 'bearer' : 'none')
    const info = AUTH[a] || [a, '']
    return h('span', { class: 'badge auth-' + a, title: info[1] }, info[0])
  }

  function paramsTable(params) {
    return h('div', { class: 'table-wrap' }, h('table', null,
      h('thead', null, h('tr', null, h('th', null, 'Name'), h('th', null, 'In'), h('th', null, 'Type'), h('th', null, 'Description'))),
      h('tbody', null, params.map(function (p) {
        p = resolve(p)
        const s = simplify(p.schema || {})
        const cons = constraints(s)
        return h('tr', null,
          h('td', { class: 'name' }, p.name, p.required ? h('span', { class: 'req', title: 'required' }, ' *') : null),
          h('td', null, p.in),
          h('td', { class: 'type' }, typeStr(s)),
          h('td', null, rich(p.description || s.description || ''), cons.length ? h('div', { class: 'constraints' }, cons.join(' · ')) : null))
      }))))
  }

  function responsesView(responses) {
    const codes = Object.keys(responses || {}).sort()
    return h('div', { class: 'responses' }, codes.map(function (code) {
      const r = resolve(responses[code]) || {}
      const content = r.content || {}
      const types = Object.keys(content)
      const first = types[0]
      const schema = first && content[first].schema
      const problemRef = schema && refName(schema) === 'Problem'
      return h('div', { class: 'resp' },
        h('div', { class: 'resp-line' },
          h('span', { class: 'status s' + String(code).charAt(0) }, code),
          h('span', null, rich(r.description || '')),
          types.length ? h('span', { class: 'ctype' }, types.join(', ')) : null,
          problemRef ? h('a', { href: '#schema-Problem', class: 'ctype' }, 'Problem') : null),
        schema && !problemRef ? schemaView(schema) : null)
    }))
  }

  function operationView(method, path, op) {
    const body = op.requestBody && op.requestBody.content
    const bodyType = body && Object.keys(body)[0]
    const id = opId(method, path, op)
    return h('article', { class: 'op', id: id },
      h('div', { class: 'op-head' },
        h('span', { class: 'method ' + method }, method.toUpperCase()),
        h('span', { class: 'op-path' }, path),
        h('span', { class: 'spacer' }),
        authBadge(op),
        h('a', { class: 'anchor', href: '#' + id, title: 'Link to this endpoint' }, '#')),
      h('div', { class: 'op-body' },
        op.summary ? h('p', { class: 'op-summary' }, op.summary) : null,
        op.description ? h('p', null, rich(op.description)) : null,
        op.deprecated ? h('p', null, h('span', { class: 'badge' }, 'deprecated')) : null,
        op.parameters && op.parameters.length ? [h('h4', null, 'Parameters'), paramsTable(op.parameters)] : null,
        bodyType ? [h('h4', null, 'Request body', ' ', h('span', { class: 'ctype' }, bodyType)), schemaView(body[bodyType].schema || {})] : null,
        h('h4', null, 'Responses'),
        responsesView(op.responses),
        h('details', null, h('summary', null, 'Example request'), h('pre', null, h('code', null, curlFor(method, path, op))))))
  }

  function guide() {
    const problem = DOC.components && DOC.components.schemas && DOC.components.schemas.Problem
    const base = (DOC.servers && DOC.servers[0] && DOC.servers[0].url) || location.origin
    return h('div', { class: 'guide' },
      h('section', { id: 'authentication' },
        h('h3', null, 'Authentication'),
        h('p', null, 'Operators sign in with ', h('code', null, 'POST /api/v1/auth/login'), ' and send the returned ', h('code', null, 'accessToken'), ' as ', h('code', null, 'Authorization: Bearer …'), '. Tokens expire after ', h('code', null, 'expiresIn'), ' seconds; ', h('code', null, 'POST /api/v1/auth/logout'), ' revokes all of them.'),
        h('p', null, 'Agents and scripts use an API key (created under ', h('code', null, '/api/v1/operator/keys'), ') in the ', h('code', null, 'x-api-key'), ' header.'),
        h('pre', null, h('code', null, "curl -s -X POST " + base + "/api/v1/auth/login \\\n  -H 'content-type: application/json' \\\n  -d '{\"login\":\"admin\",\"password\":\"…\"}'\n\ncurl -s " + base + "/api/v1/whoami -H \"x-api-key: $TASKGATE_KEY\""))),
      h('section', { id: 'errors' },
        h('h3', null, 'Errors'),
        h('p', null, 'Every error is RFC 9457 ', h('code', null, 'application/problem+json'), '. Branch on the stable ', h('code', null, 'code'), ' (e.g. ', h('code', null, 'VALIDATION_FAILED'), ', ', h('code', null, 'INVALID_CREDENTIALS'), '), not on ', h('code', null, 'detail'), ', which is for humans. Validation errors list the offending fields in ', h('code', null, 'errors'), '.'),
        h('pre', null, h('code', null, JSON.stringify({ type: 'urn:taskgate:problem:validation_failed', title: 'Bad Request', status: 400, detail: 'invalid body: /body/name Expected string', code: 'VALIDATION_FAILED', requestId: '3f0c…', errors: [{ path: '/body/name', message: 'Expected string' }] }, null, 2)))),
      h('section', { id: 'request-ids' },
        h('h3', null, 'Request IDs and rate limits'),
        h('p', null, 'Every response carries an ', h('code', null, 'x-request-id'), ' header (also ', h('code', null, 'requestId'), ' in errors). Send your own ', h('code', null, 'x-request-id'), ' (letters, digits, ', h('code', null, '. _ : -'), ', up to 128 characters) to correlate with the server logs.'),
        h('p', null, 'Requests with an API key are rate limited per key: see the ', h('code', null, 'RateLimit-*'), ' headers; over the limit the answer is ', h('code', null, '429'), ' with ', h('code', null, 'Retry-After'), '.')),
      problem ? h('section', { id: 'schema-Problem', style: 'grid-column: 1 / -1' },
        h('h3', null, 'Schema: Problem'),
        problem.description ? h('p', null, rich(problem.description)) : null,
        schemaView(problem)) : null)
  }

  function build(doc) {
    DOC = doc
    const info = doc.info || {}
    document.title = (info.title || 'API') + ' reference'
    document.getElementById('side-title').textContent = info.title || 'API'
    document.getElementById('side-version').textContent = info.version ? 'v' + info.version + ' · OpenAPI ' + (doc.openapi || '') : ''

    // Group operations by their first tag, in document order; System goes last.
    const groups = {}
    const order = []
    Object.keys(doc.paths || {}).forEach(function (path) {
      const item = doc.paths[path]
      METHODS.forEach(function (m) {
        const op = item[m]
        if (!op) return
        const tag = (op.tags && op.tags[0]) || 'Other'
        if (!groups[tag]) { groups[tag] = []; order.push(tag) }
        groups[tag].push({ method: m, path: path, op: op })
      })
    })
    order.sort(function (a, b) { return (a === 'System') - (b === 'System') })
    const tagDesc = {}
    ;(doc.tags || []).forEach(function (t) { tagDesc[t.name] = t.description })

    const side = document.getElementById('side')
    side.replaceChildren(h('div', { class: 'side-group' },
      h('div', { class: 'side-group-title' }, 'Guide'),
      [['authentication', 'Authentication'], ['errors', 'Errors'], ['request-ids', 'Request IDs & rate limits']].map(function (x) {
        return h('a', { class: 'side-link', href: '#' + x[0] }, x[1])
      })))
    const content = document.getElementById('content')
    content.replaceChildren(h('div', { class: 'intro' },
      h('h1', null, info.title || 'API reference', info.version ? h('span', { class: 'version' }, 'v' + info.version) : null),
      info.description ? h('p', { class: 'muted' }, rich(info.description)) : null,
      h('p', { class: 'muted' }, 'Base URL ', h('code', null, (doc.servers && doc.servers[0] && doc.servers[0].url) || location.origin), ' · machine-readable: ', h('a', { href: '/openapi.json' }, '/openapi.json'), ' · fields marked ', h('span', { class: 'req' }, '*'), ' are required.'),
      guide()))

    order.forEach(function (tag) {
      const slug = 'tag-' + tag.toLowerCase().replace(/[^a-z0-9]+/g, '-')
      side.appendChild(h('div', { class: 'side-group', 'data-group': tag },
        h('a', { class: 'side-group-title', href: '#' + slug, style: 'display:block' }, tag),
        groups[tag].map(function (e) {
          return h('a', { class: 'side-link', href: '#' + opId(e.method, e.path, e.op), 'data-search': (e.method + ' ' + e.path + ' ' + (e.op.summary || '') + ' ' + tag).toLowerCase(), title: e.method.toUpperCase() + ' ' + e.path + (e.op.summary ? ' — ' + e.op.summary : '') },
            h('span', { class: 'method ' + e.method }, e.method.toUpperCase()),
            h('span', { class: 'path' }, e.path))
        })))
      content.appendChild(h('section', { class: 'tag-section', id: slug, 'data-group': tag },
        h('h2', null, tag),
        tagDesc[tag] ? h('p', { class: 'muted' }, rich(tagDesc[tag])) : null,
        groups[tag].map(function (e) {
          const el = operationView(e.method, e.path, e.op)
          el.setAttribute('data-search', (e.method + ' ' + e.path + ' ' + (e.op.summary || '') + ' ' + tag).toLowerCase())
          return el
        })))
    })

    document.getElementById('filter').addEventListener('input', function (ev) {
      const q = ev.target.value.trim().toLowerCase()
      document.querySelectorAll('[data-search]').forEach(function (el) {
        el.classList.toggle('hidden', !!q && el.getAttribute('data-search').indexOf(q) < 0)
      })
      document.querySelectorAll('[data-group]').forEach(function (g) {
        g.classList.toggle('hidden', !!q && !g.querySelector('[data-search]:not(.hidden)'))
      })
    })

    if (location.hash.length > 1) {
      const target = document.getElementById(decodeURIComponent(location.hash.slice(1)))
      if (target) target.scrollIntoView()
    }
  }

  var source = document.body.getAttribute('data-openapi') || '/openapi.json'
  fetch(source, { headers: { accept: 'application/json' } })
    .then(function (res) {
      if (!res.ok) throw new Error('GET ' + source + ' answered ' + res.status)
      return res.json()
    })
    .then(build)
    .catch(function (err) {
      document.getElementById('content').replaceChildren(h('div', { class: 'error-box' }, 'Could not load the API description: ' + (err && err.message ? err.message : String(err))))
    })
})()
