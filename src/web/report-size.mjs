// A Vite plugin that prints every emitted JS and CSS file with its raw and gzipped size, and the
// gzipped JS of the first load: index.html's entry chunk and the chunks it imports statically
// (what the browser must fetch before the first screen can render; lazy screens are not counted).
// The build fails when that first load is over the budget.
import { gzipSync } from 'node:zlib';

const kB = (bytes) => `${(bytes / 1000).toFixed(1)} kB`;

/** @param {{ budgetBytes?: number }} [options] first-load JS budget, gzipped (default 250 kB) */
export function reportSize({ budgetBytes = 250_000 } = {}) {
  return {
    name: 'shortlink-report-size',
    apply: 'build',
    writeBundle(_output, bundle) {
      const files = Object.values(bundle).filter((f) => /\.(js|css)$/.test(f.fileName));
      const sizes = new Map();
      for (const f of files) {
        const bytes = Buffer.from(f.type === 'chunk' ? f.code : f.source);
        sizes.set(f.fileName, { raw: bytes.length, gzip: gzipSync(bytes).length });
      }

      // The entry chunk(s) of index.html and, transitively, their static imports.
      const firstLoad = new Set();
      const visit = (name) => {
        if (firstLoad.has(name)) return;
        firstLoad.add(name);
        const chunk = bundle[name];
        if (chunk?.type === 'chunk') chunk.imports.forEach(visit);
      };
      for (const f of files) if (f.type === 'chunk' && f.isEntry) visit(f.fileName);
      // The CSS the first load links (Vite records it per chunk).
      const firstCss = new Set();
      for (const name of firstLoad) for (const css of bundle[name]?.viteMetadata?.importedCss ?? []) firstCss.add(css);

      const width = Math.max(...files.map((f) => f.fileName.length), 10);
      const lines = ['', `${'file'.padEnd(width)}  ${'raw'.padStart(10)}  ${'gzip'.padStart(10)}`];
      for (const f of files.sort((a, b) => a.fileName.localeCompare(b.fileName))) {
        const s = sizes.get(f.fileName);
        const mark = firstLoad.has(f.fileName) || firstCss.has(f.fileName) ? '  first load' : '  lazy';
        lines.push(`${f.fileName.padEnd(width)}  ${kB(s.raw).padStart(10)}  ${kB(s.gzip).padStart(10)}${mark}`);
      }
      const sum = (names, key) => [...names].reduce((n, name) => n + (sizes.get(name)?.[key] ?? 0), 0);
      const firstJs = sum(firstLoad, 'gzip');
      const allJs = sum(
        files.filter((f) => f.type === 'chunk').map((f) => f.fileName),
        'gzip',
      );
      lines.push('');
      lines.push(
        `first load JS (index.html's entry and its static imports): ${kB(firstJs)} gzipped (${kB(sum(firstLoad, 'raw'))} raw), budget ${kB(budgetBytes)}`,
      );
      lines.push(`first load CSS: ${kB(sum(firstCss, 'gzip'))} gzipped; all JS: ${kB(allJs)} gzipped`);
      console.log(lines.join('\n'));
      if (firstJs > budgetBytes) {
        this.error(
          `first load JS is ${kB(firstJs)} gzipped, over the ${kB(budgetBytes)} budget: lazy-load more (React.lazy) or drop a dependency`,
        );
      }
    },
  };
}
