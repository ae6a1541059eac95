// EIP-712 signing with the domain separator computed once per domain. viem's signTypedData is
// sign(keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct(message))) and recomputes the domain
// separator (~30 µs of its ~150 µs of hashing) for every signature; this composes the same viem
// functions (validateTypedData, hashDomain, hashStruct, sign) and keeps the separator of each
// domain. test/unit/typed-data.test.ts checks byte equality with viem's signTypedData.
import { concat, getTypesForEIP712Domain, hashDomain, hashStruct, keccak256, validateTypedData, type Hex, type TypedDataDefinition } from 'viem'
import { sign } from 'viem/accounts'

const separators = new Map<string, Hex>()

type Types = Record<string, readonly { name: string; type: string }[]>

export function hashTypedDataCached(td: TypedDataDefinition): Hex {
  const { domain = {}, message, primaryType } = td as { domain?: Record<string, unknown>; message: Record<string, unknown>; primaryType: string; types: Types }
  const types = { EIP712Domain: getTypesForEIP712Domain({ domain }), ...(td.types as Types) }
  validateTypedData({ domain, message, primaryType, types } as never) // field values against their types, as viem does
  const key = JSON.stringify(domain, (_, v) => (typeof v === 'bigint' ? v.toString() : v))
  let separator = separators.get(key)
  if (!separator) separators.set(key, (separator = hashDomain({ domain, types } as never)))
  return keccak256(concat(['0x1901', separator, hashStruct({ data: message, primaryType, types } as never)]))
}

/** The EIP-712 signature of `td` (viem's sign: noble secp256k1, RFC 6979, low S): r ‖ s ‖ v. */
export function signTypedDataCached(privateKey: Hex, td: TypedDataDefinition): Promise<Hex> {
  return sign({ hash: hashTypedDataCached(td), privateKey, to: 'hex' })
}
