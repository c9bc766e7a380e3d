#!/usr/bin/env node
// Every repository path that a code comment or a Markdown document names must exist, so that a
// pointer to the evidence ("see bench/README.md", "src/db/lookup-thread.ts holds ...") cannot
// rot when files move. Comments are read with TypeScript's scanner (strings and regular
// expressions are not comments); Markdown, CSS, YAML and shell comments by their markers. A path
// is a word that starts with one of the repository's top-level folders or names a root file; a
// glob (`*`) must match something. `npm run check:paths`; CI runs it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const tracked = execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f && fs.existsSync(path.join(root, f)));
const trackedSet = new Set(tracked);
const folders = new Set(
  tracked.flatMap((f) =>
    f
      .split('/')
      .slice(0, -1)
      .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
  ),
);
const topLevel = [...new Set(tracked.filter((f) => f.includes('/')).map((f) => f.split('/')[0]))];
// Folders made by a build or an install, named in comments as where things go.
const made = ['dist', 'data', 'node_modules', 'generated/docs', 'coverage'];
const roots = [...topLevel, ...made].map((d) => d.replace(/[.]/g, '\\.')).join('|');
const rootFiles = tracked
  .filter((f) => !f.includes('/') && /\.(md|json|ts|cjs|mjs)$/.test(f))
  .map((f) => f.replace(/[.]/g, '\\.'));
const candidate = new RegExp(
  `(?<![\\w./@-])((?:${roots})/[\\w.*{}\\[\\]/@-]*[\\w*}\\]]/?|(?:${rootFiles.join('|')}))(?![\\w/-])`,
  'g',
);

/** The comments of a file, as [line, text]. */
function commentsOf(file, text) {
  const ext = path.extname(file);
  if (['.ts', '.tsx', '.mts', '.cts', '.js', '.mjs', '.cjs', '.jsx'].includes(ext)) {
    const out = [];
    const scanner = ts.createScanner(
      ts.ScriptTarget.Latest,
      false,
      ext.endsWith('x') ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard,
      text,
    );
    const K = ts.SyntaxKind;
    // After these a slash divides; anywhere else it opens a regular expression.
    const operand = new Set([
      K.Identifier,
      K.NumericLiteral,
      K.BigIntLiteral,
      K.StringLiteral,
      K.CloseParenToken,
      K.CloseBracketToken,
      K.CloseBraceToken,
      K.NoSubstitutionTemplateLiteral,
      K.TemplateTail,
      K.ThisKeyword,
      K.SuperKeyword,
      K.TrueKeyword,
      K.FalseKeyword,
      K.NullKeyword,
      K.PlusPlusToken,
      K.MinusMinusToken,
      K.RegularExpressionLiteral,
    ]);
    const templates = []; // open braces inside each template substitution being read
    let previous = K.Unknown;
    for (let kind = scanner.scan(); kind !== K.EndOfFileToken; kind = scanner.scan()) {
      if (kind === K.SingleLineCommentTrivia || kind === K.MultiLineCommentTrivia) {
        out.push([text.slice(0, scanner.getTokenStart()).split('\n').length, scanner.getTokenText()]);
        continue;
      }
      if (kind === K.WhitespaceTrivia || kind === K.NewLineTrivia) continue;
      if ((kind === K.SlashToken || kind === K.SlashEqualsToken) && !operand.has(previous))
        kind = scanner.reScanSlashToken();
      else if (kind === K.TemplateHead) templates.push(0);
      else if (kind === K.OpenBraceToken && templates.length) templates[templates.length - 1]++;
      else if (kind === K.CloseBraceToken && templates.length) {
        if (templates[templates.length - 1] === 0) {
          kind = scanner.reScanTemplateToken(false);
          if (kind === K.TemplateTail) templates.pop();
        } else templates[templates.length - 1]--;
      }
      previous = kind;
    }
    return out;
  }
  const lines = text.split('\n');
  if (ext === '.md') return lines.map((l, i) => [i + 1, l]);
  if (ext === '.css')
    return [...text.matchAll(/\/\*[\s\S]*?\*\//g)].map((m) => [text.slice(0, m.index).split('\n').length, m[0]]);
  if (['.yaml', '.yml', '.sh', '.py', '.conf', '.service', ''].includes(ext) || file.startsWith('.ci/')) {
    return lines.map((l, i) => [i + 1, l]).filter(([, l]) => /^\s*#/.test(l) || /\s#\s/.test(l));
  }
  if (ext === '.go') return lines.map((l, i) => [i + 1, l]).filter(([, l]) => /\/\//.test(l));
  return [];
}

function exists(named) {
  const clean = named.replace(/[/.]+$/, '');
  if (trackedSet.has(clean) || folders.has(clean) || made.some((m) => clean === m || clean.startsWith(`${m}/`)))
    return true;
  // A module named as it is imported, without its extension.
  if (['.ts', '.tsx', '.mjs', '.js'].some((ext) => trackedSet.has(`${clean}${ext}`))) return true;
  if (/[*{[]/.test(clean)) {
    const pattern = clean.replace(/\*\*|\*|\{[^}]*\}|\[[^\]]*\]|[.+^$()|\\]/g, (t) => {
      if (t === '**') return '.+';
      if (t === '*') return '[^/]*';
      if (t.startsWith('{')) return `(${t.slice(1, -1).split(',').join('|')})`;
      if (t.startsWith('[')) return '[^/]+';
      return `\\${t}`;
    });
    const re = new RegExp(`^${pattern}`);
    return tracked.some((f) => re.test(f)) || [...folders].some((f) => re.test(f));
  }
  return false;
}

const problems = [];
for (const file of tracked) {
  if (file.startsWith('generated/') || file === 'package-lock.json' || file.startsWith('bench/results/')) continue;
  const full = path.join(root, file);
  if (fs.statSync(full).size > 1_000_000) continue;
  const text = fs.readFileSync(full, 'utf8');
  for (const [line, comment] of commentsOf(file, text)) {
    for (const m of comment.matchAll(candidate)) {
      if (!exists(m[1])) problems.push(`${file}:${line}: names ${m[1]}, which is not in the repository`);
    }
  }
}
if (problems.length) {
  console.error(problems.join('\n'));
  console.error(`\n${problems.length} path(s) named in comments or docs do not exist: mend the comment or the path.`);
  process.exit(1);
}
console.log(`every path named in comments and docs exists (${tracked.length} files read)`);
