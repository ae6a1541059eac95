// Minimal server-rendered explorer pages that the default explorer URLs point to. Every value is
// HTML-escaped; styles come from /app.css (the UI's CSP allows no inline styles).
const esc = (s: unknown) => String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

export function explorerPage(title: string, rows: [string, unknown][], json: unknown): Response {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · TaskGate explorer</title><link rel="stylesheet" href="/app.css"></head>
<body><main class="explorer"><h1>${esc(title)}</h1>
<table>${rows.map(([k, v]) => `<tr><th>${esc(k)}</th><td><code>${esc(v ?? '—')}</code></td></tr>`).join('')}</table>
<h2>Record</h2><pre class="record">${esc(JSON.stringify(json, null, 2))}</pre>
<p><a href="/.well-known/taskgate-signers">Published signers</a> · <a href="/docs">API reference</a></p></main></body></html>`
  return new Response(body, { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'self'" } })
}
