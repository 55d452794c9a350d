import t from 'tap'
import { RenderTemplate } from '../../../../../plugins/core/engine/index.ts'

t.test('keeps its own copy of the parameters; setParameter adds or replaces one', async (t) => {
  const given = { title: 'Pay' }
  const request = new RenderTemplate('@PaywireCore/layout.html', given)
  request.setParameter('title', 'Paid')
  request.setParameter('content', '<p>ok</p>')
  t.same(request.parameters, { title: 'Paid', content: '<p>ok</p>' })
  t.same(given, { title: 'Pay' })
  t.equal(request.templateName, '@PaywireCore/layout.html')
  t.equal(request.result, '')
  t.same(new RenderTemplate('@A/b.html').parameters, {})
})
