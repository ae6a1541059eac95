export type BitswapOptions = Record<string, unknown>
export declare function withBitswap (...args: unknown[]): never
