import t from 'tap'
import { appendQuery, escapeHtml } from '../../../../simulators/paypal/runtime/pages.ts'

t.test('appendQuery keeps the merchant query and fragment', async (t) => {
  t.equal(appendQuery('https://shop.test/r', { token: 'EC-1' }), 'https://shop.test/r?token=EC-1')
  t.equal(appendQuery('https://shop.test/r?', { token: 'EC-1' }), 'https://shop.test/r?token=EC-1')
  t.equal(appendQuery('https://shop.test/r?cancelled&a=b%20c#top', { token: 'EC-1' }), 'https://shop.test/r?cancelled&a=b%20c&token=EC-1#top')
  t.equal(escapeHtml('<a href="x">\'&\'</a>'), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;')
})
