// The price table: what each model costs in USD per million tokens, as the administrator sets it,
// and the estimated cost of a call from its token counts (docs/doors.md, "Usage and cost").
import type { Clock } from '../clock'
import { notFound } from '../http/errors'
import type { ComputeRepository, PriceRow } from './repository'

export interface ModelPrice { model: string; inputUsdPerMTok: number; outputUsdPerMTok: number; updatedAt: string }

export class PriceTable {
  /** The table as stored, read at start and after each change (stage 3 reads it for every task). */
  private byModel = new Map<string, PriceRow>()

  constructor(private repo: Pick<ComputeRepository, 'prices' | 'setPrice' | 'deletePrice'>, private clock: Pick<Clock, 'now'>) {
    this.load()
  }

  private load(): void { this.byModel = new Map(this.repo.prices().map((r) => [r.model, r])) }

  list(): ModelPrice[] { return [...this.byModel.values()].map(view) }

  set(model: string, inputUsdPerMTok: number, outputUsdPerMTok: number): ModelPrice {
    this.repo.setPrice({ model, inputUsdPerMTok, outputUsdPerMTok, updatedAt: this.clock.now() })
    this.load()
    return view(this.byModel.get(model)!)
  }

  remove(model: string): void {
    if (!this.repo.deletePrice(model)) throw notFound('price')
    this.load()
  }

  /** The estimated cost in USD of a call's tokens (rounded to a millionth of a dollar), or null when the model has no price. */
  costOf(model: string, promptTokens: number, completionTokens: number): number | null {
    const p = this.byModel.get(model)
    if (!p) return null
    return Math.round(promptTokens * p.inputUsdPerMTok + completionTokens * p.outputUsdPerMTok) / 1e6
  }
}

const view = (r: PriceRow): ModelPrice => ({ model: r.model, inputUsdPerMTok: r.inputUsdPerMTok, outputUsdPerMTok: r.outputUsdPerMTok, updatedAt: new Date(r.updatedAt).toISOString() })
