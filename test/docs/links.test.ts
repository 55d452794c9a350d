import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/*
 * The Markdown files the package ships (package.json `files`): every relative link points at a
 * file or folder of the repository, and every link into `docs/` or to a README names a file the
 * tarball carries, so a reader of the installed package never follows a link into nothing.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const shipped = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[] }).files

function markdownFiles (): string[] {
  const found: string[] = []
  for (const pattern of shipped) {
    if (pattern.endsWith('.md')) {
      const [folder, star, ...rest] = pattern.split('/')
      if (star === '*') {
        for (const entry of readdirSync(join(ROOT, folder as string))) {
          const file = join(folder as string, entry, ...rest)
          if (existsSync(join(ROOT, file))) found.push(file)
        }
      } else if (existsSync(join(ROOT, pattern))) found.push(pattern)
    } else if (pattern === 'docs/') {
      for (const entry of readdirSync(join(ROOT, 'docs'))) if (entry.endsWith('.md')) found.push(join('docs', entry))
    }
  }
  return found
}

function inTarball (file: string): boolean {
  return shipped.some((pattern) => pattern.endsWith('/')
    ? file.startsWith(pattern)
    : new RegExp(`^${pattern.replace(/[.]/g, '\\.').replace('*', '[^/]+')}$`).test(file))
}

t.test('every relative link in a shipped Markdown file resolves', async (t) => {
  const files = markdownFiles()
  t.ok(files.includes('README.md') && files.includes('docs/coming-from-payum.md') && files.includes('gateways/stripe/README.md'))
  const broken: string[] = []
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target as string)) continue
      const path = normalize(join(dirname(file), (target as string).split('#')[0] as string))
      if (!existsSync(join(ROOT, path))) broken.push(`${file} → ${target as string}`)
      else if (path.endsWith('.md') && !inTarball(relative('.', path))) broken.push(`${file} → ${target as string} (not in the package)`)
    }
  }
  t.same(broken, [], 'no link goes nowhere')
})
