// Types for the stand-in (see package.json here). helia's own .d.ts names these.
export type DefaultLibp2pServices = Record<string, unknown>
export type CreateLibp2pOptions<T = unknown> = Record<string, unknown> & { services?: T }
export type HeliaWithLibp2p<M = unknown> = { libp2p: never; services?: M }
export declare function withLibp2p (...args: unknown[]): never
export declare function withLibp2pLight (...args: unknown[]): never
export declare function libp2pDefaults (...args: unknown[]): never
