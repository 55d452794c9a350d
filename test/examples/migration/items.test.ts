/*
 * The before/after pairs of MIGRATION.md's deprecated-item sections (examples/migration/items/):
 * each "before" goes through its deprecated path, each "after" through none, and both do
 * the same thing.
 */
import t from 'tap'
import {
  Capture, Gateway, HttpClient, LegacyConfig, LocateNotification, PaywireBuilder, Refund, ServiceContainer, recordDeprecations,
  type HttpClientResponse, type HttpRequest
} from '../../../plugins/core/engine/index.ts'
import { shopBuilder } from '../../../examples/migration/shop.ts'
import {
  CountingExtension, NoRefundsAcmeGatewayFactoryAfter, NoRefundsAcmeGatewayFactoryBefore
} from '../../../examples/migration/items/actions-and-extensions.ts'
import { handMadeGatewayAfter, handMadeGatewayBefore } from '../../../examples/migration/items/add-api.ts'
import {
  SigningAcmeGatewayFactoryAfter, SigningAcmeGatewayFactoryBefore, WebhookSigner
} from '../../../examples/migration/items/config-service.ts'
import { sandboxByDefaultAfter, sandboxByDefaultBefore } from '../../../examples/migration/items/create-config.ts'
import { liveGatewayAfter, liveGatewayBefore } from '../../../examples/migration/items/create.ts'
import {
  BackOfficeNotifierAfter, NotifyingAcmeGatewayFactoryAfter, NotifyingAcmeGatewayFactoryBefore, type BackOfficeNotifierBefore
} from '../../../examples/migration/items/httplug.ts'
import { OwnActionListAfter, OwnActionListBefore } from '../../../examples/migration/items/notify-null-action.ts'
import { FakeAcme } from './fixtures/fake-acme.ts'

function run<T> (fn: () => T): { result: T, codes: string[] } {
  const codes = new Set<string>()
  const result = recordDeprecations(codes, fn)
  return { result, codes: [...codes].sort() }
}

t.test('PAYWIREDEP003: createConfig() and configureContainer() give the same default', async (t) => {
  const before = run(sandboxByDefaultBefore)
  const after = run(sandboxByDefaultAfter)
  t.equal(before.result, true)
  t.equal(after.result, true)
  t.ok(before.codes.includes('PAYWIREDEP003'))
  t.same(after.codes, [])
})

t.test('PAYWIREDEP004: create() and the builder give the same live gateway', async (t) => {
  const before = run(liveGatewayBefore)
  const after = run(liveGatewayAfter)
  t.ok(before.codes.includes('PAYWIREDEP004'))
  t.same(after.codes, [])
  const sandboxOf = (gateway: Gateway): unknown => (gateway.actions.find((action) => 'api' in action) as unknown as { api: { sandbox: boolean } } | undefined)?.api.sandbox
  await before.result.execute(new Capture({ amount: 1, currency: 'EUR' })).catch(() => {})
  t.equal(sandboxOf(before.result), false)
  t.equal(sandboxOf(after.result), false)
})

t.test('PAYWIREDEP005: action and extension keys with a prepend list, and their getActions()/getExtensions() twin', async (t) => {
  for (const [Factory, deprecated] of [[NoRefundsAcmeGatewayFactoryBefore, true], [NoRefundsAcmeGatewayFactoryAfter, false]] as const) {
    const paywire = shopBuilder(new Factory(), { httpClient: new FakeAcme() }).getPaywire()
    t.teardown(() => paywire.close())
    const { result: gateway, codes } = run(() => paywire.getGateway('shop'))
    t.equal(codes.includes('PAYWIREDEP005'), deprecated, Factory.name)
    t.equal(gateway.actions[0]?.constructor.name.endsWith('DenyRefundsAction'), true, 'consulted first')
    await t.rejects(gateway.execute(new Refund({ amount: 100, acme_status: 'captured' })), { message: 'Refunds are disabled for this gateway.' })
    const counting = gateway.extensions.find((extension) => extension instanceof CountingExtension) as CountingExtension
    t.equal(counting.count, 1)
  }
})

t.test('PAYWIREDEP006: a hand-made gateway with addApi() and its constructor-injected twin', async (t) => {
  for (const [make, deprecated] of [[handMadeGatewayBefore, true], [handMadeGatewayAfter, false]] as const) {
    const acme = new FakeAcme()
    const { result: gateway, codes } = run(() => make(acme))
    t.equal(codes.includes('PAYWIREDEP006'), deprecated)
    const details = { amount: 100, currency: 'EUR' }
    await gateway.execute(new Capture(details))
    t.match(details, { acme_charge_id: 'ch_1', acme_status: 'captured' })
    t.equal(FakeAcme.clientIdOf(acme.requests[0]), '<CLIENT_ID>')
  }
})

t.test('PAYWIREDEP008-010: httplug.* keys and the HttpClient service send the same request', async (t) => {
  const sent: HttpRequest[] = []
  const client = new (class extends HttpClient {
    async send (request: HttpRequest): Promise<HttpClientResponse> {
      sent.push(request)
      return { statusCode: 202, headers: {}, body: '' }
    }
  })()
  // 1.x: a gateway's config could replace the client under its httplug.client key.
  const config = new LegacyConfig(new NotifyingAcmeGatewayFactoryBefore().createConfig({ 'httplug.client': client }))
  const before = run(() => config.get<BackOfficeNotifierBefore>('acme.back_office'))
  t.same(before.codes, ['PAYWIREDEP008', 'PAYWIREDEP009', 'PAYWIREDEP010', 'PAYWIREDEP011'])

  const paywire = new PaywireBuilder().addGlobalService(HttpClient, client).getPaywire()
  t.teardown(() => paywire.close())
  const after = run(() => paywire.container.createScope()
    .register(new NotifyingAcmeGatewayFactoryAfter().configureContainer())
    .get(BackOfficeNotifierAfter))
  t.same(after.codes, [])

  t.equal(await before.result.notify({ paid: 1 }), 202)
  t.equal(await after.result.notify({ paid: 1 }), 202)
  t.same(sent[0], {
    method: 'POST', url: 'https://back-office.shop.example/events', headers: { 'content-type': 'application/json' }, body: '{"paid":1}'
  })
  t.same(sent[1], sent[0])
})

t.test('PAYWIREDEP011: a service built by a config closure, and by an autowire() definition', async (t) => {
  const config = new LegacyConfig(new SigningAcmeGatewayFactoryBefore().createConfig({ client_secret: 'shh' }))
  const before = run(() => config.get<WebhookSigner>('acme.webhook_signer'))
  t.same(before.codes, ['PAYWIREDEP011'])
  const after = run(() => ServiceContainer.create()
    .register({ ...new SigningAcmeGatewayFactoryAfter().configureContainer(), 'acme.client_secret': 'shh' })
    .get(WebhookSigner))
  t.same(after.codes, [])
  t.equal(before.result.sign('payload'), after.result.sign('payload'))
  t.not(before.result.sign('payload'), new WebhookSigner('another secret').sign('payload'))
})

t.test('PAYWIREDEP012: a PayPal factory listing NotifyNullAction, and its LocateWebhookAction twin, both take webhooks', async (t) => {
  for (const [Factory, deprecated] of [[OwnActionListBefore, true], [OwnActionListAfter, false]] as const) {
    const paywire = new PaywireBuilder()
      .addGatewayFactory('paypal_rest', new Factory())
      .addGateway('paypal', { factory: 'paypal_rest', client_id: '<CLIENT_ID>', client_secret: '<CLIENT_SECRET>' })
      .getPaywire()
    t.teardown(() => paywire.close())
    const { result: gateway, codes } = run(() => paywire.getGateway('paypal'))
    t.equal(codes.includes('PAYWIREDEP012'), deprecated, Factory.name)
    t.ok(gateway.actions.some((action) => action.supports(new LocateNotification())), 'the notify route finds its webhook action')
  }
})
