import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { TemplateRenderer } from '../../../../../plugins/core/engine/index.ts'
import { CORE_TEMPLATES_DIR } from '../../../../../plugins/core/engine/kernel/template-renderer.ts'

t.test('{{ name }} is HTML-escaped, {{{ name }}} is raw, dotted names read nested values, missing ones are empty', async (t) => {
  const dir = t.testdir({ 'page.html': '<h1>{{ title }}</h1>{{{html}}}<p>{{ order.number }} {{order.total}}</p>[{{ missing }}][{{ order.none.deep }}][{{ nothing }}]' })
  const renderer = new TemplateRenderer({ Shop: dir })
  const html = await renderer.render('@Shop/page.html', {
    title: '<script>"x" & \'y\'</script>', html: '<b>bold</b>', order: { number: 'A-1', total: 12 }, nothing: null
  })
  t.equal(html, '<h1>&lt;script&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/script&gt;</h1><b>bold</b><p>A-1 12</p>[][][]')
})

t.test('a namespace may have several directories, searched in order', async (t) => {
  const dir = t.testdir({ first: { 'a.html': 'first a' }, second: { 'a.html': 'second a', 'b.html': 'second b' } })
  const renderer = new TemplateRenderer({ Shop: [join(dir, 'first'), join(dir, 'second')] })
  t.equal(await renderer.render('@Shop/a.html', {}), 'first a')
  t.equal(await renderer.render('@Shop/b.html', {}), 'second b')
})

t.test('the core namespace always resolves; override directories are searched before the core one', async (t) => {
  t.same(new TemplateRenderer().paths, { PaywireCore: [CORE_TEMPLATES_DIR] })
  const core = await new TemplateRenderer().render('@PaywireCore/layout.html', { title: 'T', content: '<p>c</p>' })
  t.match(core, '<title>T</title>')
  t.match(core, '<main>\n<p>c</p>\n</main>')
  const dir = t.testdir({ 'layout.html': 'my layout {{{ content }}}' })
  const overridden = new TemplateRenderer({ PaywireCore: dir })
  t.same(overridden.paths, { PaywireCore: [dir, CORE_TEMPLATES_DIR] })
  t.equal(await overridden.render('@PaywireCore/layout.html', { content: 'x' }), 'my layout x')
})

t.test('a missing template is a coded error listing the searched files', async (t) => {
  const dir = t.testdir({})
  const renderer = new TemplateRenderer({ Shop: dir })
  await t.rejects(renderer.render('@Shop/missing.html', {}), {
    code: 'PAYWIRE_ERR_TEMPLATE_NOT_FOUND',
    message: `Template "@Shop/missing.html" was not found. Searched: ${join(dir, 'missing.html')}. Add its directory to paywire.paths under its namespace.`
  })
  await t.rejects(renderer.render('@Other/page.html', {}), { message: /Searched: no directory for this namespace\./ })
  await t.rejects(renderer.render('page.html', {}), { message: /^Template "page\.html" was not found\. Searched: no directory/ })
})

t.test('a template name cannot climb out of its namespace\'s directory', async (t) => {
  const root = t.testdir({ templates: { 'ok.html': 'ok' }, 'secret.html': 'secret' })
  const renderer = new TemplateRenderer({ Shop: join(root, 'templates') })
  t.equal(await renderer.render('@Shop/ok.html', {}), 'ok')
  await t.rejects(renderer.render('@Shop/../secret.html', {}), { code: 'PAYWIRE_ERR_TEMPLATE_NOT_FOUND' })
  await t.rejects(renderer.render('@Shop/sub/../../secret.html', {}), { code: 'PAYWIRE_ERR_TEMPLATE_NOT_FOUND' })
  const trailing = new TemplateRenderer({ Shop: join(root, 'templates') + '/' })
  t.equal(await trailing.render('@Shop/ok.html', {}), 'ok', 'a directory given with a trailing slash works too')
})

t.test('a template that was missing is found once it exists', async (t) => {
  const dir = t.testdir({})
  const renderer = new TemplateRenderer({ Shop: dir })
  await t.rejects(renderer.render('@Shop/late.html', {}))
  await writeFile(join(dir, 'late.html'), 'here now')
  t.equal(await renderer.render('@Shop/late.html', {}), 'here now')
})
