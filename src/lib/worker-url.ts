// Where a worker thread's entry point is, from source and in the compiled binary, and whether a path is one of the binary's embedded files.
//
// From source, `src/<path>` next to this file's folder. In the binary every module's
// import.meta.url is the executable itself (/$bunfs/root/taskgate; B:/~BUN/root/ on Windows) and
// each worker, an extra entry point of the compiled build (scripts/build.ts), is embedded at its
// path relative to src/. A wrong path only shows when the worker gets its first message.
/** Whether a path or URL names a file embedded in the compiled binary (/$bunfs/…; B:/~BUN/… on Windows). */
export const embeddedPath = (p: string): boolean => p.includes('/$bunfs/') || p.includes('/~BUN/') || p.includes('\\~BUN\\')
const COMPILED = embeddedPath(import.meta.url)

/** The URL of the worker at `src/<pathFromSrc>`, e.g. workerUrl('chain/sign-worker.ts'). */
export function workerUrl(pathFromSrc: string): string {
  return new URL(COMPILED ? `./${pathFromSrc}` : `../${pathFromSrc}`, import.meta.url).href
}
