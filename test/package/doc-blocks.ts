/*
 * The TypeScript and JavaScript code blocks of the Markdown a user reads (README.md, docs/, the
 * plugins' and gateways' READMEs), as test/package/consumer.test.ts type-checks and runs them
 * against the installed tarball. A block is a whole module unless an HTML comment right before
 * its fence says otherwise (CONTRIBUTING.md, "Code blocks in the docs"):
 *
 *   <!-- paywire:with-previous -->            continues the file's previous checked block
 *   <!-- paywire:context                      the code around a fragment, unseen by readers: the
 *   const app = Fastify()                     block takes the place of the line `…` (or follows
 *   …                                         the context when it has none)
 *   -->
 *   <!-- paywire:no-run <reason> -->          type-checked, never started (it listens elsewhere)
 *   <!-- paywire:not-checked <reason> -->     not code to compile: a shape, a sketch
 *
 * Of the whole programs, a shop (it listens) is started for one request, and a program on the
 * engine alone (it builds its Paywire with the default memory storage) is run to its end.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface DocBlock {
  /** `README.md:48`: the file and the line of its opening fence. */
  readonly where: string
  /** A file name for the block's module, from `where`. */
  readonly name: string
  /** What tsc compiles: the block, in its context or after the block it continues. */
  readonly code: string
  /** A whole program that listens: the test starts it and makes one request. */
  readonly listens: boolean
  /** A whole program on the engine alone (it builds its Paywire, memory storage): the test runs it to its end. */
  readonly runsToEnd: boolean
}

export interface SkippedBlock {
  readonly where: string
  readonly reason: string
}

const CODE_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs'])
const MARKER = /^<!--\s*paywire:(\S+)([\s\S]*?)-->$/

/** The shipped Markdown whose code is the user's: README.md, docs/*.md, plugins/* and gateways/* READMEs. */
export function docFiles (root: string): string[] {
  const files = ['README.md', ...readdirSync(join(root, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]
  for (const folder of ['plugins', 'gateways']) {
    for (const name of readdirSync(join(root, folder))) {
      if (readdirSync(join(root, folder, name)).includes('README.md')) files.push(`${folder}/${name}/README.md`)
    }
  }
  return files.sort()
}

/** The marker comment that ends right before line `index` (blank lines between allowed), or undefined. */
function markerBefore (lines: string[], index: number): string | undefined {
  let end = index - 1
  while (end >= 0 && (lines[end] as string).trim() === '') end--
  if (end < 0 || !(lines[end] as string).trim().endsWith('-->')) return undefined
  let start = end
  while (start > 0 && !(lines[start] as string).includes('<!--')) start--
  const comment = lines.slice(start, end + 1).join('\n').trim()
  return comment.startsWith('<!-- paywire:') ? comment : undefined
}

/** Every code block of one Markdown text, checked or skipped with its reason; a marker it does not know throws. */
export function blocksOf (file: string, text: string): { checked: DocBlock[], skipped: SkippedBlock[] } {
  const lines = text.split('\n')
  const checked: DocBlock[] = []
  const skipped: SkippedBlock[] = []
  let previous: string | undefined
  for (let open = 0; open < lines.length; open++) {
    const fence = /^(\s*)```(\S*)\s*$/.exec(lines[open] as string)
    if (fence === null) continue
    const indent = (fence[1] as string).length
    let close = open + 1
    while (close < lines.length && !/^\s*```\s*$/.test(lines[close] as string)) close++
    // A block inside a list item is indented with it: its code is not.
    const body = lines.slice(open + 1, close).map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length))).join('\n')
    const where = `${file}:${open + 1}`
    const marker = CODE_LANGUAGES.has(fence[2] as string) ? markerBefore(lines, open) : undefined
    const start = open
    open = close
    if (!CODE_LANGUAGES.has(fence[2] as string)) continue
    const [, kind, rest = ''] = marker === undefined ? [] : MARKER.exec(marker) ?? ['', marker]
    const reason = rest.trim()
    let code = body
    if (kind === 'not-checked') {
      if (reason === '') throw new Error(`${where}: paywire:not-checked needs a reason`)
      skipped.push({ where, reason })
      continue
    } else if (kind === 'with-previous') {
      if (previous === undefined) throw new Error(`${where}: paywire:with-previous, but no checked block before it`)
      code = `${previous}\n${body}`
    } else if (kind === 'context') {
      const around = rest.replace(/^\n/, '').replace(/\n$/, '')
      code = /^…$/m.test(around) ? around.replace(/^…$/m, () => body) : `${around}\n${body}`
    } else if (kind === 'no-run') {
      if (reason === '') throw new Error(`${where}: paywire:no-run needs a reason`)
    } else if (kind !== undefined) {
      throw new Error(`${where}: unknown marker ${marker as string} (with-previous, context, no-run <reason>, not-checked <reason>)`)
    }
    previous = code
    const program = kind === undefined || kind === 'with-previous'
    checked.push({
      where,
      name: `${file.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-').toLowerCase()}-${start + 1}`,
      code,
      listens: kind === undefined && /\.listen\(/.test(code),
      runsToEnd: program && /\.getPaywire\(\)/.test(code) && !/from 'fastify'|setStorageBackend/.test(code)
    })
  }
  return { checked, skipped }
}

/** The blocks of every file docFiles() names. */
export function docBlocks (root: string): { checked: DocBlock[], skipped: SkippedBlock[] } {
  const all = { checked: [] as DocBlock[], skipped: [] as SkippedBlock[] }
  for (const file of docFiles(root)) {
    const { checked, skipped } = blocksOf(file, readFileSync(join(root, file), 'utf8'))
    all.checked.push(...checked)
    all.skipped.push(...skipped)
  }
  return all
}

/**
 * One TypeScript project in `dir` (inside the application that installed the package): a module
 * per checked block, compiled with `strict` and `nodenext` to `dir/out/<name>.js`.
 */
export function writeDocProject (dir: string, blocks: readonly DocBlock[]): void {
  mkdirSync(dir, { recursive: true })
  for (const block of blocks) writeFileSync(join(dir, `${block.name}.ts`), `// ${block.where}\n${block.code}\nexport {}\n`)
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      target: 'ES2022',
      module: 'nodenext',
      moduleResolution: 'nodenext',
      strict: true,
      types: ['node'],
      skipLibCheck: true,
      rootDir: '.',
      outDir: 'out'
    },
    files: blocks.map((block) => `${block.name}.ts`)
  }, null, 2))
}
