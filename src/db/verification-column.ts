// The tasks table's verification record (docs/architecture.md, "Data layer"): its JSON text (the
// verification proof is its keccak256) stored encoded, with the phrases every record repeats written
// once and its hashes as bytes (src/lib/phrase-codec.ts): a BLOB of ~0.2 KB instead of 0.5 KB.
// Read back as the same text, so the proof still holds; rows written before hold the text.
import { customType } from 'drizzle-orm/sqlite-core'
import { phraseCodec } from '../lib/phrase-codec'

/** Part of the stored format: never edit (test/unit/row-encoding.test.ts pins its hash). */
export const VERIFICATION_PHRASES: readonly string[] = [
  '{"version":1,"taskType":"',
  '","threshold":',
  ',"status":"VERIFIED","checks":[{"name":"non_empty","score":',
  ',"status":"FAILED","checks":[{"name":"non_empty","score":',
  '},{"name":"not_an_echo","score":',
  ',"note":"similarity ',
  '"},{"name":"length_sane","score":',
  ' chars"},{"name":"well_formed_sentiment","score":',
  ' chars"},{"name":"well_formed_trade_signal","score":',
  ' chars"}],"outputHash":"',
  ',"note":"label ',
  ',"note":"signal ',
  '"}],"outputHash":"',
  '","promptHash":"',
  ',"weight":',
  ',"score":',
  'sentiment_analysis',
  'trade_signal',
  'general',
]
const verification = phraseCodec(VERIFICATION_PHRASES)

/** The verification record as the row stores it: encoded, or its text when that is not smaller. */
export function encodeVerification(text: string): string | Uint8Array {
  return verification.encode(new TextEncoder().encode(text)) ?? text
}

/** A JSON column's value as its text (the verification record may be stored encoded). */
export const jsonText = (stored: string | Uint8Array): string => (typeof stored === 'string' ? stored : new TextDecoder().decode(verification.decode(stored)))

/** The column type: a JSON object in, the same object out, stored encoded. */
export const verificationColumn = customType<{ data: Record<string, unknown>; driverData: string | Uint8Array }>({
  dataType: () => 'text',
  toDriver: (v) => (v == null ? v as never : encodeVerification(JSON.stringify(v))), // a placeholder's null comes here too
  fromDriver: (v) => JSON.parse(jsonText(v)) as Record<string, unknown>,
})
