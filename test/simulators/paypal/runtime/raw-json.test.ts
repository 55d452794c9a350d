import t from 'tap'
import { rawTopLevelProperty } from '../../../../simulators/paypal/runtime/raw-json.ts'

t.test('finds the verbatim text of a top-level property', async (t) => {
  const event = '{ "id" : "WH-1", "resource":{"a":[1, {"b":"}]\\"x"}], "c": null } }'
  const document = `{"auth_algo":"SHA256withRSA", "n": 12.5e3, "ok": true, "list": [ "]" ], "webhook_event": ${event} , "after": 1}`
  t.equal(rawTopLevelProperty(document, 'webhook_event'), event)
  t.equal(rawTopLevelProperty(document, 'n'), '12.5e3')
  t.equal(rawTopLevelProperty(document, 'ok'), 'true')
  t.equal(rawTopLevelProperty(document, 'auth_algo'), '"SHA256withRSA"')
  t.equal(rawTopLevelProperty(document, 'after'), '1')
  t.equal(rawTopLevelProperty('  {\n"k\\"ey": "v"}', 'k"ey'), '"v"', 'escaped keys')
})

t.test('undefined when the property or object is not there', async (t) => {
  t.equal(rawTopLevelProperty('{"a":1}', 'webhook_event'), undefined)
  t.equal(rawTopLevelProperty('{}', 'webhook_event'), undefined)
  t.equal(rawTopLevelProperty('[1]', 'webhook_event'), undefined)
  t.equal(rawTopLevelProperty('{"x":{"webhook_event":1}}', 'webhook_event'), undefined, 'nested ones do not count')
})
