import t, { type Test } from 'tap'
import { RenderTemplate, RenderTemplateAction, TemplateRenderer } from '../../../../../../plugins/core/engine/index.ts'

function setup (t: Test, layout?: string | null) {
  const dir = t.testdir({ 'page.html': '<p>{{ message }}</p>', 'layout.html': '<main title="{{ title }}">{{{ content }}}</main>' })
  return new RenderTemplateAction(new TemplateRenderer({ Shop: dir }), layout)
}

t.test('supports RenderTemplate requests only', async (t) => {
  const action = setup(t)
  t.ok(action.supports(new RenderTemplate('@Shop/page.html')))
  t.notOk(action.supports({ templateName: '@Shop/page.html' }))
})

t.test('renders the template into the layout, which sees the parameters and the content', async (t) => {
  const action = setup(t, '@Shop/layout.html')
  const request = new RenderTemplate('@Shop/page.html', { message: 'a < b', title: 'Pay' })
  await action.execute(request)
  t.equal(request.result, '<main title="Pay"><p>a &lt; b</p></main>')
})

t.test('layout: null in the parameters renders the template alone; so does an action without a layout', async (t) => {
  const request = new RenderTemplate('@Shop/page.html', { message: 'hi', layout: null })
  await setup(t, '@Shop/layout.html').execute(request)
  t.equal(request.result, '<p>hi</p>')
  const bare = new RenderTemplate('@Shop/page.html', { message: 'hi' })
  await setup(t).execute(bare)
  t.equal(bare.result, '<p>hi</p>')
})

t.test('a layout given in the parameters replaces the default one', async (t) => {
  const request = new RenderTemplate('@Shop/page.html', { message: 'hi', layout: '@PaywireCore/layout.html', title: 'Core' })
  await setup(t, '@Shop/layout.html').execute(request)
  t.match(request.result, '<title>Core</title>')
  t.match(request.result, '<p>hi</p>')
})
