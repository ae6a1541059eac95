// Where a worker thread's entry point is, from source and in the compiled binary.
//
// From source, `src/<path>` next to this file's folder. In the binary every module's
// import.meta.url is the executable itself (/$bunfs/root/taskgate; B:/~BUN/root/ on Windows) and
// each worker, an extra entry point of the compiled build (scripts/build.ts), is embedded at its
// path relative to src/. A wrong path only shows when the worker gets its first message.
const COMPILED = import.meta.url.includes('/$bunfs/') || import.meta.url.includes('/~BUN/')

/** The URL of the worker at `src/<pathFromSrc>`, e.g. workerUrl('chain/sign-worker.ts'). */
export function workerUrl(pathFromSrc: string): string {
  return new URL(COMPILED ? `./${pathFromSrc}` : `../${pathFromSrc}`, import.meta.url).href
}
