import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize } from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'

/*
 * The Markdown files the package ships: every relative link resolves inside the tarball (a reader
 * of the installed package never follows a link into nothing), and a file the tarball does not
 * carry is linked absolutely into the repository, at a path that exists there. The file list is
 * npm's own (`npm pack --dry-run --json`; scripts skipped, so no build: no Markdown links into dist/).
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const REPOSITORY = 'https://github.com/paywire/paywire'
const packed = JSON.parse(execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: ROOT, encoding: 'utf8' })
  .replace(/^[^[]*/, '')) as Array<{ files: Array<{ path: string }> }>
const tarball = new Set(packed[0]?.files.map((file) => file.path))
/** A folder is in the tarball when a file under it is. */
const inTarball = (path: string): boolean => tarball.has(path) || [...tarball].some((file) => file.startsWith(`${path.replace(/\/$/, '')}/`))

t.test('package.json names the repository, its home page and where bugs go', async (t) => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as Record<string, unknown>
  t.same(manifest.repository, { type: 'git', url: `git+${REPOSITORY}.git` })
  t.equal(manifest.homepage, `${REPOSITORY}#readme`)
  t.same(manifest.bugs, { url: `${REPOSITORY}/issues` })
})

t.test('every link in a shipped Markdown file resolves in the tarball or in the repository', async (t) => {
  const files = [...tarball].filter((file) => file.endsWith('.md'))
  t.ok(files.includes('README.md') && files.includes('docs/coming-from-payum.md') && files.includes('gateways/stripe/README.md'))
  const broken: string[] = []
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const link = target as string
      const repositoryPath = new RegExp(`^${REPOSITORY}/(?:blob|tree)/main/([^#?]+)`).exec(link)?.[1]
      if (repositoryPath !== undefined) {
        if (!existsSync(join(ROOT, repositoryPath))) broken.push(`${file} → ${link} (not in the repository)`)
        else if (inTarball(repositoryPath)) broken.push(`${file} → ${link} (shipped: link it relatively)`)
        continue
      }
      if (/^(https?:|mailto:|#)/.test(link)) continue
      const path = normalize(join(dirname(file), link.split('#')[0] as string)).replace(/\/$/, '')
      if (!inTarball(path)) broken.push(`${file} → ${link} (not in the package${existsSync(join(ROOT, path)) ? `: link ${REPOSITORY}/blob/main/${path}` : ''})`)
    }
  }
  t.same(broken, [], 'no link goes nowhere')
})
