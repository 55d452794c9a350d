// Module hooks that load the project's TypeScript for the tests (registered by typescript-loader.mjs,
// which .taprc imports). esbuild transpiles each file on its own, without minifying, and inlines a
// source map: V8's coverage maps back to the sources line by line (tsx's whitespace-minified output
// collapses a file into a few lines, which made every file read as fully covered), and stack
// traces point at the .ts lines. Type checking is `npm run typecheck`'s job.
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

const TYPESCRIPT = /\.(?:ts|mts)$/

export async function load (url, context, nextLoad) {
  if (!url.startsWith('file:') || !TYPESCRIPT.test(new URL(url).pathname)) return nextLoad(url, context)
  const path = fileURLToPath(url)
  const { code } = await transform(await readFile(path, 'utf8'), {
    loader: 'ts',
    format: 'esm',
    target: 'node20',
    sourcemap: 'inline',
    sourcefile: path,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } }
  })
  return { format: 'module', source: code, shortCircuit: true }
}
