import t from 'tap'
import { GatewayAwareAction, isAction } from '../../../../../../plugins/core/engine/index.ts'
import { isGatewayAware, isPrepend } from '../../../../../../plugins/core/engine/kernel/actions/action.ts'

class OrphanAction extends GatewayAwareAction {
  supports (): boolean { return true }
  async execute (): Promise<void> { await this.gateway.execute({}) }
}

t.test('isAction() needs both supports() and execute()', async (t) => {
  t.ok(isAction({ supports: () => true, execute: () => {} }))
  t.notOk(isAction({ supports: () => true }))
  t.notOk(isAction({ execute: () => {} }))
  t.notOk(isAction(null))
  t.notOk(isAction(OrphanAction), 'a class is not an action instance')
})

t.test('the prepend marker is a prepend: true property', async (t) => {
  t.ok(isPrepend({ prepend: true }))
  t.notOk(isPrepend({ prepend: 'yes' }))
  t.notOk(isPrepend({}))
  t.notOk(isPrepend(null))
})

t.test('a gateway-aware action has setGateway()', async (t) => {
  t.ok(isGatewayAware(new OrphanAction()))
  t.notOk(isGatewayAware({ supports: () => true, execute: () => {} }))
  t.notOk(isGatewayAware(undefined))
})

t.test('a gateway-aware action executed outside a gateway says how to fix it', async (t) => {
  await t.rejects(new OrphanAction().execute(), {
    name: 'TypeError',
    message: 'OrphanAction was executed outside a gateway: add it with gateway.addAction().'
  })
})
