export type HTTPOptions = Record<string, unknown>
export declare function withHTTP (...args: unknown[]): never
