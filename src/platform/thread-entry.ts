// Where a worker thread starts. From the sources (tests, `tsx`), a `.mjs` beside the `.ts` that
// registers tsx's loader and imports it (a worker does not inherit the main thread's loader);
// from the compiled JavaScript in dist/ (what `npm start` and the CLI run), the `.js` itself.
export function threadEntry(fromModuleUrl: string, relativeName: string): URL {
  return new URL(`${relativeName}${fromModuleUrl.endsWith('.ts') ? '.mjs' : '.js'}`, fromModuleUrl);
}
