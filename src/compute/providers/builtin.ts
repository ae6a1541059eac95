// The offline, deterministic provider (docs/pipeline.md, "Compute pool"): lexicon sentiment for
// sentiment_analysis, an extractive summary (word-frequency sentence scoring) for everything else.
import type { CompletionRequest, CompletionResult } from '../types'

// A compact valence lexicon (AFINN-style, −3…+3) covering common English opinion words.
const LEXICON: Record<string, number> = Object.fromEntries(
  `love:3 excellent:3 amazing:3 outstanding:3 fantastic:3 wonderful:3 superb:3 brilliant:3 perfect:3 best:3 delighted:3 thrilled:3
great:2 good:2 happy:2 glad:2 pleased:2 enjoy:2 enjoyed:2 like:2 liked:2 nice:2 beautiful:2 impressive:2 reliable:2 fast:1 recommend:2 win:2 wins:2 gain:2 gains:2 profit:2 profitable:2 bullish:2 strong:2 success:2 successful:2 efficient:2 helpful:2 friendly:2 easy:1 smooth:1 improved:2 improve:1 positive:2 growth:2 rally:2 surge:2 upgrade:1 solid:1 fine:1 ok:1 okay:1 fair:1 calm:1 stable:1 safe:1
terrible:-3 awful:-3 horrible:-3 worst:-3 hate:-3 hated:-3 disgusting:-3 disaster:-3 catastrophic:-3 fraud:-3 scam:-3
bad:-2 poor:-2 sad:-2 angry:-2 annoyed:-2 disappointed:-2 disappointing:-2 broken:-2 slow:-1 bug:-1 bugs:-2 crashed:-2 fail:-2 failed:-2 failure:-2 loss:-2 losses:-2 lose:-2 bearish:-2 weak:-2 problem:-2 problems:-2 issue:-1 issues:-1 difficult:-1 hard:-1 expensive:-1 overpriced:-2 useless:-2 waste:-2 wasted:-2 negative:-2 decline:-2 drop:-1 dropped:-2 plunge:-3 crash:-3 risk:-1 risky:-2 worse:-2 unhappy:-2 refund:-1 complaint:-2 complain:-2 rude:-2 dirty:-2 late:-1 delay:-1 delayed:-1 wrong:-2 error:-2 errors:-2`
    .split(/\s+/).filter(Boolean).map((p) => { const [w, v] = p.split(':'); return [w!, Number(v)] }),
)
const NEGATORS = new Set(['not', 'no', 'never', "don't", "doesn't", "didn't", "isn't", "wasn't", "aren't", "won't", "can't", 'hardly', 'without'])
const INTENSIFIERS: Record<string, number> = { very: 1.5, really: 1.5, extremely: 2, so: 1.3, super: 1.5, incredibly: 2, quite: 1.2, absolutely: 1.8 }
const STOP = new Set('a an the and or but if of to in on at for with by from is are was were be been being it its this that these those as i you he she we they me my our your their them his her not no do does did have has had will would can could should may might than then there here what which who whom when where why how all any both each few more most other some such only own same so too very just also into over under again further once about'.split(' '))

const words = (s: string) => s.toLowerCase().match(/[a-z']+/g) ?? []

export function sentiment(text: string) {
  const ws = words(text)
  let score = 0
  const positive: string[] = []
  const negative: string[] = []
  for (let i = 0; i < ws.length; i++) {
    const v = LEXICON[ws[i]!]
    if (v === undefined) continue
    let val = v
    const prev = ws[i - 1], prev2 = ws[i - 2]
    if (prev && INTENSIFIERS[prev]) val *= INTENSIFIERS[prev]!
    if ((prev && NEGATORS.has(prev)) || (prev2 && NEGATORS.has(prev2))) val = -val * 0.75
    score += val
    ;(val >= 0 ? positive : negative).push(ws[i]!)
  }
  // normalise to [-1, 1] (AFINN comparative with a soft cap)
  const comparative = ws.length ? score / Math.sqrt(ws.length * 4 + score * score) : 0
  const label = comparative > 0.05 ? 'positive' : comparative < -0.05 ? 'negative' : 'neutral'
  return { label, score: Math.round(comparative * 1000) / 1000, confidence: Math.round(Math.min(1, Math.abs(comparative) * 2 + (positive.length + negative.length ? 0.3 : 0)) * 1000) / 1000, positive, negative }
}

/** Extractive summary: about a third of the sentences (1 to 3), the highest scoring, in text order. */
export function summarize(text: string): string {
  const sentences = text.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s+(?=[A-Z0-9"'(])/).filter((s) => s.length > 0)
  const maxSentences = Math.min(3, Math.max(1, Math.ceil(sentences.length / 3)))
  if (sentences.length <= maxSentences) return sentences.join(' ')
  const freq = new Map<string, number>()
  for (const w of words(text)) if (!STOP.has(w) && w.length > 2) freq.set(w, (freq.get(w) ?? 0) + 1)
  let max = 1
  for (const v of freq.values()) if (v > max) max = v // no spread: a long text has more distinct words than a call can take arguments
  const scored = sentences.map((s, i) => {
    const ws = words(s).filter((w) => !STOP.has(w) && w.length > 2)
    const sc = ws.reduce((a, w) => a + (freq.get(w) ?? 0) / max, 0) / Math.max(4, ws.length ** 0.8)
    return { i, s, sc: sc + (i === 0 ? 0.15 : 0) }
  })
  return scored.sort((a, b) => b.sc - a.sc || a.i - b.i).slice(0, maxSentences).sort((a, b) => a.i - b.i).map((x) => x.s).join(' ')
}

export function builtinComplete(req: CompletionRequest): CompletionResult {
  const t0 = performance.now()
  const text = req.messages.filter((m) => m.role === 'user').map((m) => m.content).join('\n')
  const output = req.taskType === 'sentiment_analysis' ? JSON.stringify(sentiment(text)) : summarize(text)
  return { output, model: 'builtin', provider: 'builtin', usage: { promptTokens: words(text).length, completionTokens: words(output).length }, latencyMs: performance.now() - t0, repeatable: true }
}
