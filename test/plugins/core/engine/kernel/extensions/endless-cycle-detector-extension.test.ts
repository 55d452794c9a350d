import t from 'tap'
import { Capture, EndlessCycleDetectorExtension, Gateway } from '../../../../../../plugins/core/engine/index.ts'
import { FnGatewayAction } from '../../../../../helpers/engine.ts'

/** A gateway whose capture action executes the same request again, forever. */
function loopingGateway (extension: EndlessCycleDetectorExtension) {
  const depths: number[] = []
  const gateway = new Gateway()
    .addExtension(extension)
    .addAction(new FnGatewayAction(Capture, async (request, gateway) => {
      depths.push(depths.length + 1)
      await gateway.execute(request)
    }))
  return { gateway, depths }
}

t.test('stops a request that keeps executing itself after 100 nested executes', async (t) => {
  const extension = new EndlessCycleDetectorExtension()
  t.equal(extension.limit, 100)
  const { gateway, depths } = loopingGateway(extension)
  await t.rejects(gateway.execute(new Capture({})), {
    code: 'PAYWIRE_ERR_ENDLESS_CYCLE',
    statusCode: 500,
    message: /nested 100 times/
  })
  t.equal(depths.length, 100, 'the action ran at depths 1 to 100; the 101st execute was refused')
})

t.test('the limit is configurable', async (t) => {
  const { gateway, depths } = loopingGateway(new EndlessCycleDetectorExtension(3))
  await t.rejects(gateway.execute(new Capture({})), { code: 'PAYWIRE_ERR_ENDLESS_CYCLE', message: /nested 3 times/ })
  t.equal(depths.length, 3)
})

t.test('nesting below the limit is fine', async (t) => {
  let remaining = 5
  const gateway = new Gateway()
    .addExtension(new EndlessCycleDetectorExtension(5))
    .addAction(new FnGatewayAction(Capture, async (request, gateway) => {
      if (--remaining > 0) await gateway.execute(request)
    }))
  t.equal(await gateway.execute(new Capture({})), undefined)
  t.equal(remaining, 0)
})
