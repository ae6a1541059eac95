// Starts the API reference on /docs (served as-is to the browser, not bundled): Scalar's standalone
// bundle renders /openapi.json, with a TypeScript (fetch) example added to every operation, and its
// "try it" signed in with the console's session when this tab has one.
'use strict'
;(() => {
  // The console (ui/app.js `session`) keeps its bearer token per tab in sessionStorage, under these
  // keys; its "Docs" links open /docs in the same tab, so the token is here on the same origin.
  const TOKEN_KEY = 'taskgate.accessToken'
  const TOKEN_EXP_KEY = 'taskgate.accessTokenExpiresAt'

  function sessionToken() {
    try {
      const exp = Number(sessionStorage.getItem(TOKEN_EXP_KEY) || 0)
      if (exp && exp <= Date.now()) return null
      return sessionStorage.getItem(TOKEN_KEY)
    } catch { return null } // storage disabled
  }

  const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']

  function resolve(doc, schema) {
    for (let i = 0; i < 10 && schema && typeof schema.$ref === 'string' && schema.$ref.startsWith('#/'); i++) {
      schema = schema.$ref.slice(2).split('/').reduce((o, k) => (o ? o[k.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined), doc)
    }
    return schema || {}
  }

  const typeOf = (s) => (Array.isArray(s.type) ? s.type.find((x) => x !== 'null') : s.type)

  /** An example value for a schema: its own example or default, else a placeholder of its type (named after `name`). */
  function exampleOf(doc, schema, depth, name) {
    const s = resolve(doc, schema)
    if (s.examples && s.examples.length) return s.examples[0]
    if (s.example !== undefined) return s.example
    if (s.default !== undefined) return s.default
    if (s.const !== undefined) return s.const
    if (s.enum && s.enum.length) return s.enum[0]
    const alt = s.oneOf || s.anyOf
    if (alt && alt.length) return exampleOf(doc, alt.find((x) => resolve(doc, x).type !== 'null') || alt[0], depth, name)
    if (s.allOf) return Object.assign({}, ...s.allOf.map((x) => exampleOf(doc, x, depth, name)))
    if (depth > 4) return null
    switch (typeOf(s)) {
      case 'object': {
        const props = s.properties || {}
        const names = s.required && s.required.length ? s.required : Object.keys(props).slice(0, 4)
        return Object.fromEntries(names.filter((n) => props[n]).map((n) => [n, exampleOf(doc, props[n], depth + 1, n)]))
      }
      case 'array': return s.items ? [exampleOf(doc, s.items, depth + 1, name)] : []
      case 'integer': case 'number': return typeof s.minimum === 'number' ? s.minimum : 1
      case 'boolean': return true
      case 'null': return null
      case 'string':
        if (s.format === 'date-time') return new Date(0).toISOString()
        if (s.format === 'uri') return 'https://example.com/hook'
        return name ? `<${name}>` : 'string'
      default: return depth === 0 ? {} : null // any JSON value
    }
  }

  /** A TypeScript type for a schema, a few levels deep (`unknown` below that). */
  function tsType(doc, schema, depth, indent) {
    const s = resolve(doc, schema)
    if (s.const !== undefined) return JSON.stringify(s.const)
    if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ')
    const alt = s.oneOf || s.anyOf
    if (alt) return [...new Set(alt.map((x) => tsType(doc, x, depth, indent)))].join(' | ')
    if (s.allOf) return s.allOf.map((x) => tsType(doc, x, depth, indent)).join(' & ')
    const types = Array.isArray(s.type) ? s.type : [s.type]
    const one = (t) => {
      switch (t) {
        case 'string': return 'string'
        case 'integer': case 'number': return 'number'
        case 'boolean': return 'boolean'
        case 'null': return 'null'
        case 'array': return s.items ? `Array<${tsType(doc, s.items, depth + 1, indent)}>` : 'unknown[]'
        case 'object': {
          const props = Object.entries(s.properties || {})
          if (!props.length || depth > 2) return 'Record<string, unknown>'
          const req = new Set(s.required || [])
          const pad = '  '.repeat(indent + 1)
          const key = (k) => (/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k))
          return `{\n${props.map(([k, v]) => `${pad}${key(k)}${req.has(k) ? '' : '?'}: ${tsType(doc, v, depth + 1, indent + 1)}`).join('\n')}\n${'  '.repeat(indent)}}`
        }
        default: return 'unknown'
      }
    }
    return types.filter(Boolean).length ? types.map(one).join(' | ') : 'unknown'
  }

  const camel = (name) => name.replace(/[^A-Za-z0-9]+(.)?/g, (_, c) => (c ? c.toUpperCase() : '')).replace(/^[0-9]/, '_$&')

  /** The TypeScript (fetch) example of one operation. */
  function typeScriptSample(doc, path, method, op, shared) {
    const params = [...(shared || []), ...(op.parameters || [])].map((p) => resolve(doc, p))
    const lines = []
    const pathParams = params.filter((p) => p.in === 'path')
    for (const p of pathParams) lines.push(`const ${camel(p.name)} = ${JSON.stringify(String(exampleOf(doc, p.schema, 1, p.name) ?? p.name))}`)
    let url = path.replace(/\{([^}]+)\}/g, (_, n) => `\${encodeURIComponent(${camel(n)})}`)
    const query = params.filter((p) => p.in === 'query' && p.required)
    if (query.length) url += '?' + query.map((p) => `${p.name}=${encodeURIComponent(String(exampleOf(doc, p.schema, 1, p.name)))}`).join('&')

    const headers = []
    const security = op.security || doc.security || []
    const schemes = security.flatMap((s) => Object.keys(s))
    if (schemes.includes('apiKey')) headers.push("'x-api-key': process.env.TASKGATE_API_KEY ?? ''")
    else if (schemes.includes('bearer')) headers.push('authorization: `Bearer ${process.env.TASKGATE_TOKEN}`')
    const body = op.requestBody && resolve(doc, op.requestBody).content
    const json = body && body['application/json']
    if (json) headers.push("'content-type': 'application/json'")

    const init = [`  method: '${method.toUpperCase()}',`]
    if (headers.length) init.push(`  headers: {\n${headers.map((h) => `    ${h},`).join('\n')}\n  },`)
    if (json) init.push(`  body: JSON.stringify(${JSON.stringify(exampleOf(doc, json.schema, 0), null, 2).replace(/\n/g, '\n  ')}),`)
    else if (body && body['multipart/form-data']) {
      lines.push('const form = new FormData()', "form.append('file', new Blob(['hello']), 'hello.txt')")
      init.push('  body: form,')
    }

    const okStatus = Object.keys(op.responses || {}).find((c) => /^2\d\d$/.test(c))
    const ok = okStatus && resolve(doc, op.responses[okStatus])
    const okJson = ok && ok.content && ok.content['application/json']
    lines.push(
      '',
      `const res = await fetch(\`\${baseUrl}${url}\`, {`,
      ...init,
      '})',
      'if (!res.ok) {',
      '  const problem: { code: string; detail?: string } = await res.json() // application/problem+json',
      '  throw new Error(`${res.status} ${problem.code}: ${problem.detail ?? \'\'}`)',
      '}',
    )
    if (okJson) lines.push(`const data: ${tsType(doc, okJson.schema, 0, 0)} = await res.json()`)
    else if (okStatus !== '204' && ok && ok.content) lines.push('const data = await res.text()')
    return [`const baseUrl = ${JSON.stringify(location.origin)}`, ...lines].join('\n')
  }

  function addTypeScriptSamples(doc) {
    for (const [path, item] of Object.entries(doc.paths || {})) {
      for (const method of METHODS) {
        const op = item[method]
        if (!op) continue
        const sample = { lang: 'typescript', label: 'TypeScript (fetch)', source: typeScriptSample(doc, path, method, op, item.parameters) }
        op['x-codeSamples'] = [...(op['x-codeSamples'] || []), sample]
      }
    }
    return doc
  }

  function showSession(token) {
    const el = document.getElementById('tg-session')
    if (!el) return
    el.textContent = token
      ? 'Try it uses your console session (bearer). To use an API key instead, pick apiKey under Authentication.'
      : 'Not signed in in this tab: sign in to the console and follow its Docs link, or paste an API key (x-api-key) under Authentication.'
  }

  async function start() {
    const token = sessionToken()
    showSession(token)
    const res = await fetch('/openapi.json', { headers: { accept: 'application/json' } })
    if (!res.ok) throw new Error(`/openapi.json answered ${res.status}`)
    const doc = addTypeScriptSamples(await res.json())
    document.getElementById('reference').replaceChildren()
    window.Scalar.createApiReference('#reference', {
      content: doc,
      // Offline: no web fonts, no telemetry, no links out to Scalar's hosted services.
      withDefaultFonts: false,
      telemetry: false,
      showDeveloperTools: 'never',
      hideClientButton: true,
      agent: { disabled: true },
      mcp: { disabled: true },
      documentDownloadType: 'json',
      // Relative document (no TASKGATE_PUBLIC_URL): examples and "try it" go to this origin.
      servers: doc.servers && doc.servers.length ? undefined : [{ url: location.origin, description: 'This server' }],
      defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
      // The token stays in this tab's sessionStorage: never copied to localStorage.
      persistAuth: false,
      authentication: token
        ? { preferredSecurityScheme: 'bearer', securitySchemes: { bearer: { token } } }
        : { preferredSecurityScheme: 'apiKey' },
    })
  }

  start().catch((err) => {
    const p = document.createElement('p')
    p.className = 'tg-loading'
    p.textContent = `The reference could not load: ${err && err.message ? err.message : err}. The document is at /openapi.json.`
    document.getElementById('reference').replaceChildren(p)
  })
})()
