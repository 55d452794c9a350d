import { inspect, type InspectOptions } from 'node:util'
import type { ServiceContainer } from '../di/service-container.ts'
import type { AnyPaywireEvent, PaywireEventMap, PaywireEventType, PaywireEvents } from '../events/paywire-events.ts'
import type { ExclusiveExecutor, ExclusiveOptions, ExclusiveResult, ExclusiveTarget } from '../kernel/exclusive-executor.ts'
import type { NotificationReceiver } from '../kernel/notification-receiver.ts'
import type { Reply } from '../requests/replies.ts'
import type { Identity } from '../model/identity.ts'
import { PAYWIRE_ERR_UNKNOWN_GATEWAY } from '../errors.ts'
import { redactValue } from '../observability/redact.ts'
import type { Token } from '../model/token.ts'
import type { UrlParameters } from '../security/token-factory.ts'
import type { Gateway } from '../kernel/gateway.ts'
import type { GatewayFactory, GatewayOptions, GatewayRegistry } from './gateway-registry.ts'
import type { GenericTokenFactory } from '../security/generic-token-factory.ts'
import type { HttpRequestVerifier } from '../security/http-request-verifier.ts'
import type { TokenStorage } from '../security/token-storage.ts'
import type { ModelClass, Storage } from '../storage/storage.ts'
import type { StorageRegistry } from '../storage/storage-registry.ts'
import { AbstractStorage } from '../storage/abstract-storage.ts'
import type { StorageBackend } from '../commit/storage-backend.ts'
import { checkHealth, type HealthOptions, type HealthReport } from './health.ts'
import { Logger, NullLogger } from '../observability/logger.ts'
import { ReconcileSweeper } from '../reconcile/sweeper.ts'
import { reconcileParts } from './reconcile-parts.ts'
import { Payment } from '../model/payment.ts'
import { reindexPayments, type ReindexReport } from '../storage/reindex.ts'

export interface PaywireParts {
  container: ServiceContainer
  ownsContainer: boolean
  gateways: GatewayRegistry
  storages: StorageRegistry
  backend: StorageBackend
  tokenStorage: TokenStorage
  tokenFactory: GenericTokenFactory
  httpRequestVerifier: HttpRequestVerifier
  executor: ExclusiveExecutor
  notifications: NotificationReceiver
  events: PaywireEvents
  /** The origins the shop is reached at; never derived from a request. */
  shopOrigins?: () => readonly string[]
  /** Releases what the builder created (the default HTTP client's connections). */
  close: () => Promise<void>
}

/** The central object: gateways by name, storages by model, tokens. Built by PaywireBuilder. */
export class Paywire {
  readonly container: ServiceContainer
  readonly #parts: PaywireParts
  #reconcile: ReconcileSweeper | undefined

  constructor (parts: PaywireParts) {
    this.#parts = parts
    this.container = parts.container
  }

  /** Built on first use, then cached. */
  getGateway (name: string): Gateway {
    return this.#parts.gateways.getGateway(name)
  }

  hasGateway (name: string): boolean {
    return this.#parts.gateways.hasGateway(name)
  }

  getGateways (): Map<string, Gateway> {
    return new Map(this.#parts.gateways.getGatewayNames().map((name) => [name, this.getGateway(name)]))
  }

  getGatewayNames (): string[] {
    return this.#parts.gateways.getGatewayNames()
  }

  /** A copy of the gateway's options: its values as given, but inspect() and JSON mask secret ones. */
  getGatewayOptions (name: string): Readonly<GatewayOptions> | undefined {
    const options = this.#parts.gateways.getGatewayOptions(name)
    if (options === undefined) return undefined
    const copy = { ...options }
    Object.defineProperties(copy, {
      toJSON: { value: () => redactValue(options), enumerable: false },
      [inspect.custom]: { value: (_depth: number, inspectOptions: InspectOptions) => inspect(redactValue(options), inspectOptions), enumerable: false }
    })
    return Object.freeze(copy)
  }

  /** A summary: the gateways, their factories' names and the storages, never their options. */
  [inspect.custom] (): string {
    return `Paywire { gateways: ${inspect(this.getGatewayNames())}, factories: ${inspect(this.getGatewayFactoryNames())} }`
  }

  getGatewayFactory (name: string): GatewayFactory {
    return this.#parts.gateways.getGatewayFactory(name)
  }

  getGatewayFactoryNames (): string[] {
    return this.#parts.gateways.getGatewayFactoryNames()
  }

  /** Registers a gateway after the central object was built (options merge like the builder's). */
  addGateway (name: string, options: GatewayOptions | Gateway): this {
    this.#parts.gateways.addGateway(name, options)
    return this
  }

  /** `scope`: a container scope already holding the factory's definitions (what gateway plugins pass). */
  addGatewayFactory (name: string, factory: GatewayFactory, scope?: ServiceContainer): this {
    this.#parts.gateways.addGatewayFactory(name, factory, scope)
    return this
  }

  getStorage<T extends object> (modelOrClass: ModelClass<T> | T): Storage<T> {
    return this.#parts.storages.get(modelOrClass)
  }

  /**
   * Registers a storage after the central object was built (gateway plugins add one for
   * their own record class); by default one from the storage backend.
   */
  addStorage<T extends object> (Model: ModelClass<T>, storage: Storage<T> = this.#parts.backend.createStorage(Model)): this {
    this.#parts.storages.add(Model, storage)
    return this
  }

  hasStorage (Model: ModelClass): boolean {
    return this.#parts.storages.has(Model)
  }

  getStorageBackend (): StorageBackend {
    return this.#parts.backend
  }

  getStorages (): Storage[] {
    return this.#parts.storages.all()
  }

  /**
   * The preparation procedure in one call: stores the model and creates its capture token
   * (with the done token it redirects to). The storage backend stores them together
   * (StorageBackend.saveWithTokens): Redis in one script when the tokens are its own too,
   * else both writes start together, so a pipelining backend sends them in one round trip;
   * it resolves once both are stored.
   */
  async prepareCapture (gatewayName: string, model: object, afterPath: string, afterParameters?: UrlParameters): Promise<Token> {
    if (!this.hasGateway(gatewayName)) throw new PAYWIRE_ERR_UNKNOWN_GATEWAY(gatewayName, ` Registered gateways: ${this.getGatewayNames().join(', ') || 'none'}.`)
    const storage = this.getStorage(model)
    const tokens = this.getTokenFactory()
    // A storage that gives ids only when it saves is written first, the way the procedure reads.
    if (storage.assignId === undefined) {
      await storage.update(model)
      return await tokens.createCaptureToken(gatewayName, model, afterPath, afterParameters)
    }
    storage.assignId(model)
    // A storage whose update() is not the base class's (a subclass's, an application's wrapper) is
    // called as it is: its write goes through it, the tokens beside it.
    if (!(storage instanceof AbstractStorage) || storage.update !== AbstractStorage.prototype.update) {
      const [token] = await Promise.all([tokens.createCaptureToken(gatewayName, model, afterPath, afterParameters), storage.update(model)])
      return token
    }
    const { token, tokens: made } = tokens.buildCaptureToken(gatewayName, model, afterPath, afterParameters)
    const { backend } = this.#parts
    await storage.updateThrough(model, async (write) => { await backend.saveWithTokens(write, made, tokens.tokenFactory.tokenStorage) })
    return token
  }

  /**
   * Runs a request that changes a payment as its only writer: claims the payment (or
   * throws PAYWIRE_ERR_PAYMENT_BUSY), reads it again, runs `createRequest(identity)` through
   * the gateway and commits what it changed with the claim's release (ExclusiveExecutor).
   *
   *   await paywire.executeExclusive('paypal', payment, (model) => new Refund(model, { amount: 500 }))
   */
  async executeExclusive<R> (gateway: string | Gateway, target: ExclusiveTarget, createRequest: (target: Token | Identity) => R,
    options?: ExclusiveOptions): Promise<ExclusiveResult<R>> {
    return await this.#parts.executor.execute(typeof gateway === 'string' ? this.getGateway(gateway) : gateway, target, createRequest, options)
  }

  /**
   * Takes a provider's notification (a webhook) that reached the gateway's notify URL, read
   * from the HTTP request being served (runWithHttpRequest): the gateway verifies it and
   * locates its payment, whose Notify then runs as its only writer; money no payment owns is
   * reported once as `money.unmatched`. Resolves to the gateway's reply (a refusal), or
   * undefined when the notification was taken. The notify route (`/notify/unsafe/:gateway`) calls it.
   */
  async receiveNotification (gatewayName: string): Promise<Reply | undefined> {
    return await this.#parts.notifications.receive(this.getGateway(gatewayName), gatewayName)
  }

  getExclusiveExecutor (): ExclusiveExecutor {
    return this.#parts.executor
  }

  /**
   * Subscribes to payment events ('payment.captured'…, 'money.unmatched', or '*' for all),
   * delivered at least once from the outbox (docs/events.md); returns the unsubscribe function.
   */
  on<K extends PaywireEventType> (type: K, handler: (event: PaywireEventMap[K]) => void | Promise<void>): () => void
  on (type: '*', handler: (event: AnyPaywireEvent) => void | Promise<void>): () => void
  on (type: PaywireEventType | '*', handler: (event: any) => void | Promise<void>): () => void {
    return this.#parts.events.on(type as PaywireEventType, handler)
  }

  /** Every event, whatever its type. */
  onAny (handler: (event: AnyPaywireEvent) => void | Promise<void>): () => void {
    return this.#parts.events.onAny(handler)
  }

  off (type: PaywireEventType | '*', handler: (event: any) => void | Promise<void>): void {
    this.#parts.events.off(type, handler)
  }

  /** The dispatcher: start(), drain(), idle(), dead(), and the outbox it delivers from. */
  get events (): PaywireEvents {
    return this.#parts.events
  }

  /**
   * Can this instance take payments? Pings the storage backend and reads the event outbox
   * (backlog, oldest due event, dead events), each bounded by `timeoutMs` (default 1000):
   * `down` when the storage or the outbox does not answer, `degraded` when events are not
   * being delivered, else `ok`. The report holds names, counts and error codes, never a
   * connection string (docs/operations.md).
   */
  async health (options?: HealthOptions): Promise<HealthReport> {
    const events = this.#parts.events
    return await checkHealth({ backend: this.#parts.backend, outbox: events.outbox, delivering: () => events.delivering }, options)
  }

  /**
   * The reconciliation sweeper: sweepOnce() Syncs the payments that need a look now,
   * start()/stop() do it every intervalMs, configure() sets its options (docs/operations.md).
   * The core plugin's `reconcile` option starts it once the application is ready.
   */
  get reconcile (): ReconcileSweeper {
    const { container, gateways, storages, backend, executor, events } = this.#parts
    const logger = container.has(Logger) ? container.get(Logger) : new NullLogger()
    return (this.#reconcile ??= new ReconcileSweeper(reconcileParts({ gateways, storages, backend, executor, events, logger })))
  }

  getTokenFactory (): GenericTokenFactory {
    return this.#parts.tokenFactory
  }

  getHttpRequestVerifier (): HttpRequestVerifier {
    return this.#parts.httpRequestVerifier
  }

  getTokenStorage (): TokenStorage {
    return this.#parts.tokenStorage
  }

  /** The origins the shop is reached at (its configured base URL's, or the plugin's trusted list). */
  getShopOrigins (): readonly string[] {
    return this.#parts.shopOrigins?.() ?? []
  }

  /** Disposes the gateway scopes, and the container when the builder created it. */
  /**
   * Stores the search facets of every payment, read again through its gateway (see
   * reindexPayments): once after upgrading to a Paywire with PaymentSearch, whose older
   * payments have none, or after changing the attention thresholds.
   */
  async reindexPayments (): Promise<ReindexReport> {
    return await reindexPayments(this.getStorage(Payment))
  }

  async close (): Promise<void> {
    await this.#reconcile?.stop()
    await this.#parts.events.close()
    await this.#parts.gateways.close()
    if (this.#parts.ownsContainer) await this.container.dispose()
    await this.#parts.close()
  }
}
