// Signs EIP-712 typed data off the main thread (hashing and secp256k1 signing cost ~0.6 ms per
// signature in pure JS; two per task). Started by Signer at the first signature; the key arrives
// in the first message, and the worker answers `ready` once it can sign.
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'

declare const self: Worker
let account: PrivateKeyAccount | null = null

self.onmessage = async (e: MessageEvent) => {
  const m = e.data as { init?: `0x${string}`; id?: number; typedData?: Parameters<PrivateKeyAccount['signTypedData']>[0] }
  if (m.init) { account = privateKeyToAccount(m.init); self.postMessage({ ready: true }); return }
  try {
    const signature = await account!.signTypedData(m.typedData!)
    self.postMessage({ id: m.id, signature })
  } catch (err) {
    self.postMessage({ id: m.id, error: (err as Error).message })
  }
}
