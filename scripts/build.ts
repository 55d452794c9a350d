// npm run build (and npm pack, through prepack): compiles the library to dist/ with
// tsconfig.build.json, then does what tsc does not: copies the HTML templates next to the
// modules that read them (new URL('./templates/', import.meta.url)), and rewrites the
// relative '.ts' specifiers tsc leaves in declaration files (imports and module augmentations:
// TypeScript reads them, other tools that follow .d.ts imports do not) to the '.js' files that exist.
import { execFileSync } from 'node:child_process'
import { chmodSync, cpSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'

const root = join(import.meta.dirname, '..')
const dist = join(root, 'dist')

/** Every file under `dir` whose name ends with `extension` (readdirSync's recursive mode is Node 20.1+). */
function filesUnder (dir: string, extension: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(extension))
    .map((file) => join(dir, file))
}

const RELATIVE_TS_SPECIFIER = /(\bfrom\s+|\bimport\s*\(\s*|\bdeclare\s+module\s+)(['"])(\.{1,2}\/[^'"]+)\.ts\2/g

rmSync(dist, { recursive: true, force: true })
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
execFileSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' })
const assets = ['plugins', 'gateways', 'simulators'].flatMap((dir) => filesUnder(join(root, dir), '.html'))
for (const file of assets) cpSync(file, join(dist, relative(root, file)))
for (const file of filesUnder(dist, '.d.ts')) {
  const text = readFileSync(file, 'utf8')
  const rewritten = text.replace(RELATIVE_TS_SPECIFIER, '$1$2$3.js$2')
  if (rewritten !== text) writeFileSync(file, rewritten)
}
chmodSync(join(dist, 'bin/paywire.js'), 0o755)
console.error(`dist/: compiled, ${assets.length} template(s) copied`)
