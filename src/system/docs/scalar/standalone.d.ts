// The path of the file, embedded in the compiled binary (imported with { type: 'file' }).
declare const path: string
export default path
