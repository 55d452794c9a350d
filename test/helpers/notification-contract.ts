/*
 * What the gateway-wide notify route promises on every storage backend: a provider's
 * notification about money no stored payment owns is reported once (one money.unmatched event,
 * one error line), however often the provider delivers it and whichever instance receives it;
 * a notification about a stored payment runs that payment's Notify under its claim.
 */
import {
  CoreGatewayFactory, GatewayAwareAction, GetHttpRequest, HttpResponse, LocateNotification, Notify, Payment, PaywireBuilder,
  Logger, runWithHttpRequest, type ActionEntry, type Paywire, type StorageBackend, type UnmatchedMoneyEvent
} from '../../plugins/core/engine/index.ts'

interface Test {
  test (name: string, fn: (t: any) => Promise<void>): unknown
}

/** A provider whose webhook body is `{ "id": "<event id>", "payment": "<Paywire payment id>" }`; "forged" bodies are refused. */
class LocateHookAction extends GatewayAwareAction {
  supports (request: unknown): boolean {
    return request instanceof LocateNotification
  }

  async execute (request: LocateNotification): Promise<void> {
    const http = new GetHttpRequest()
    await this.gateway.execute(http)
    const event = JSON.parse(http.content) as { id: string, payment: string, forged?: boolean }
    if (event.forged === true) throw new HttpResponse('forged', 400)
    request.notification = { provider: 'Hook', eventId: event.id, resourceIds: { payment: event.payment }, event }
    request.lookups = [{ model: Payment, id: event.payment }]
  }
}

const notified: string[] = []

class HookNotifyAction {
  supports (request: unknown): boolean {
    return request instanceof Notify && request.notification?.provider === 'Hook' && request.model instanceof Payment
  }

  execute (request: Notify): void {
    const payment = request.model as Payment
    payment.description = `notified by ${request.notification?.eventId ?? '?'}`
    notified.push(payment.id as string)
  }
}

class HookGatewayFactory extends CoreGatewayFactory {
  override getActions (): ActionEntry[] {
    return [HookNotifyAction, ...super.getActions(), LocateHookAction]
  }
}

interface Line { level: string, message: string }

function recordingLogger (lines: Line[]): Logger {
  const at = (level: string) => (fields: unknown, message?: string) => { lines.push({ level, message: typeof fields === 'string' ? fields : message ?? '' }) }
  return { trace: at('trace'), debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error'), fatal: at('fatal'), child () { return this } } as unknown as Logger
}

function instance (backend: StorageBackend, lines: Line[]): Paywire {
  return new PaywireBuilder()
    .setStorageBackend(backend)
    .addGatewayFactory('hook', new HookGatewayFactory())
    .addGateway('hooks', { factory: 'hook' })
    .setEventDelivery({ pollIntervalMs: 10 })
    .addGlobalService(Logger, recordingLogger(lines))
    .getPaywire()
}

async function deliver (paywire: Paywire, body: object): Promise<unknown> {
  return await runWithHttpRequest({
    method: 'POST', uri: '/payment/notify/unsafe/hooks', query: {}, request: {}, content: JSON.stringify(body), headers: {}, clientIp: '127.0.0.1', userAgent: 'Hook'
  }, () => paywire.receiveNotification('hooks'))
}

export function notificationContract (t: Test, make: (t: any) => Promise<{ backend: StorageBackend }>): void {
  t.test('contract: money no payment owns is reported once per provider event, by whichever instance receives it', async (t: any) => {
    const { backend } = await make(t)
    const lines: Line[] = []
    const [first, second] = [instance(backend, lines), instance(backend, lines)]
    t.teardown(async () => { await first.close(); await second.close() })
    const reports: UnmatchedMoneyEvent[] = []
    first.on('money.unmatched', (event) => { reports.push(event) })
    const eventId = `EV-${Math.random()}`
    for (const paywire of [first, second, first, second]) t.equal(await deliver(paywire, { id: eventId, payment: 'nowhere' }), undefined, 'acknowledged')
    await first.events.drain()
    t.same(reports.map((report) => [report.eventId, report.resourceIds]), [[eventId, { payment: 'nowhere' }]])
    t.equal(lines.filter((line) => line.level === 'error').length, 1, 'one error line')
    t.equal(lines.filter((line) => /already reported/.test(line.message)).length, 3, 'the redeliveries at info')
  })

  t.test('contract: a notification about a stored payment runs its Notify; a forged one is refused before any lookup', async (t: any) => {
    const { backend } = await make(t)
    const lines: Line[] = []
    const paywire = instance(backend, lines)
    t.teardown(() => paywire.close())
    const payments = paywire.getStorage(Payment)
    const payment = Object.assign(payments.create(), { gatewayName: 'hooks', number: `HOOK-${Math.random()}`, totalAmount: 100, currencyCode: 'EUR' })
    await payments.update(payment)
    t.equal(await deliver(paywire, { id: 'EV-1', payment: payment.id }), undefined)
    t.equal((await payments.find(payment.id as string))?.description, 'notified by EV-1')
    t.ok(notified.includes(payment.id as string))
    const refused = await deliver(paywire, { id: 'EV-2', payment: payment.id, forged: true })
    t.match(refused, { statusCode: 400, content: 'forged' })
    t.equal((await payments.find(payment.id as string))?.description, 'notified by EV-1', 'nothing ran')
  })
}
