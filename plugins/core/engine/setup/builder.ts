import type { AwilixContainer } from 'awilix'
import { CoreGatewayFactory } from './core-gateway-factory.ts'
import type { ServiceId } from '../di/definitions.ts'
import { ServiceContainer } from '../di/service-container.ts'
import { PaywireEvents, eventDeliveryOptions, type EventDeliveryOptions } from '../events/paywire-events.ts'
import { describeWrites, facetsOfWrite } from '../events/payment-events.ts'
import { attentionOptions, type AttentionOptions } from '../reconcile/attention.ts'
import { AbstractStorage } from '../storage/abstract-storage.ts'
import { PaymentStateReader } from '../requests/payment-state.ts'
import { DEFAULT_CLAIM_TTL_MS, ExclusiveExecutor } from '../kernel/exclusive-executor.ts'
import { NotificationReceiver } from '../kernel/notification-receiver.ts'
import { StorageExtension } from '../kernel/extensions/storage-extension.ts'
import { Gateway } from '../kernel/gateway.ts'
import { GatewayRegistry, mergeGatewayOptions, mergeOptions, type GatewayFactory, type GatewayOptions } from './gateway-registry.ts'
import { HttpClient, UndiciHttpClient } from '../http-client.ts'
import { PAYWIRE_ERR_INVALID_OPTION } from '../errors.ts'
import { Logger, NullLogger } from '../observability/logger.ts'
import { DetailsRecord } from '../model/array-object.ts'
import { Payment } from '../model/payment.ts'
import { Payout } from '../model/payout.ts'
import { Paywire } from './paywire.ts'
import { paywireLogger } from '../observability/redact.ts'
import { DEFAULT_TOKEN_PATHS, GenericTokenFactory, type TokenPaths } from '../security/generic-token-factory.ts'
import { HttpRequestVerifier } from '../security/http-request-verifier.ts'
import { TokenFactory, type BaseUrl } from '../security/token-factory.ts'
import { TokenStorage } from '../security/token-storage.ts'
import { MemoryStorageBackend, StorageBackend } from '../commit/storage-backend.ts'
import type { IdempotencyStore } from '../storage/idempotency-store.ts'
import { MemoryIdempotencyStore } from '../storage/memory-idempotency-store.ts'
import type { ModelClass, Storage } from '../storage/storage.ts'
import { StorageRegistry } from '../storage/storage-registry.ts'

/**
 * Configures and builds the central Paywire object. Every method but getPaywire() returns
 * the builder, so calls chain:
 *
 *   const paywire = new PaywireBuilder()
 *     .setBaseUrl('https://shop.example')
 *     .addGatewayFactory('offline', new OfflineGatewayFactory())
 *     .addGateway('cash', { factory: 'offline' })
 *     .getPaywire()
 */
export class PaywireBuilder {
  #storages = new StorageRegistry()
  #tokenStorage: TokenStorage | undefined
  #gateways = new Map<string, GatewayOptions | Gateway>()
  #factories = new Map<string, GatewayFactory>()
  #factoryDefaults = new Map<string, Record<string, unknown>>()
  #globalServices = new Map<ServiceId, unknown>()
  #paths: TokenPaths = { ...DEFAULT_TOKEN_PATHS }
  #baseUrl: BaseUrl | undefined
  #shopOrigins: (() => readonly string[]) | undefined
  #container: ServiceContainer | undefined
  #backend: StorageBackend = new MemoryStorageBackend()
  #claimTtlMs = DEFAULT_CLAIM_TTL_MS
  #eventDelivery: EventDeliveryOptions = {}
  #attention: Required<AttentionOptions> = attentionOptions()

  /**
   * Storages for Payment, Payout and DetailsRecord, and the token storage, from the storage
   * backend (in memory unless setStorageBackend() chose another).
   */
  addDefaultStorages (): this {
    for (const Model of [Payment, Payout, DetailsRecord] as ModelClass[]) {
      if (!this.#storages.has(Model)) this.#storages.add(Model, this.#backend.createStorage(Model))
    }
    this.#tokenStorage ??= this.#backend.createTokenStorage()
    return this
  }

  /** Where default storages, and storages gateways add later, keep their records. */
  setStorageBackend (backend: StorageBackend): this {
    this.#backend = backend
    return this
  }

  addStorage<T extends object> (Model: ModelClass<T>, storage: Storage<T>): this {
    this.#storages.add(Model, storage)
    return this
  }

  setTokenStorage (tokenStorage: TokenStorage): this {
    this.#tokenStorage = tokenStorage
    return this
  }

  /**
   * `factory` names a registered factory; the other options override that factory's
   * defaults ("client_id" or "<factory>.client_id"). Calls for one name merge.
   */
  addGateway (name: string, options: GatewayOptions | Gateway): this {
    const existing = this.#gateways.get(name)
    this.#gateways.set(name, options instanceof Gateway
      ? options
      : mergeGatewayOptions(name, existing instanceof Gateway ? undefined : existing, options))
    return this
  }

  addGatewayFactory (name: string, factory: GatewayFactory): this {
    this.#factories.set(name, factory)
    return this
  }

  /** Default options for every gateway of one factory; each gateway's own options win. */
  addGatewayFactoryConfig (name: string, options: Record<string, unknown>): this {
    this.#factoryDefaults.set(name, mergeOptions(this.#factoryDefaults.get(name) ?? {}, options))
    return this
  }

  /**
   * A service every gateway container sees, by class reference or string id: a logger
   * (addGlobalService(Logger, app.log)), the HTTP client (addGlobalService(HttpClient, client))...
   */
  addGlobalService (id: ServiceId, service: unknown): this {
    this.#globalServices.set(id, service)
    return this
  }

  /** Overrides some of the named token paths (capture, authorize, refund, cancel, payout, notify, sync, done). */
  setGenericTokenFactoryPaths (paths: TokenPaths): this {
    this.#paths = { ...this.#paths, ...paths }
    return this
  }

  /** The absolute origin token URLs are built on, or a function giving it per request. */
  setBaseUrl (baseUrl: BaseUrl): this {
    this.#baseUrl = baseUrl
    return this
  }

  /**
   * How long a request's claim on a payment lasts (ms) unless renewed; it is renewed every
   * third of it while the gateway runs, so it only bounds how long a crashed request keeps
   * others waiting.
   */
  setClaimTtlMs (ms: number): this {
    if (!Number.isInteger(ms) || ms < 30) throw new PAYWIRE_ERR_INVALID_OPTION('claimTtlMs', 'must be a whole number of milliseconds, 30 or more')
    this.#claimTtlMs = ms
    return this
  }

  /** How payment events are retried, polled and leased (see docs/events.md). */
  setEventDelivery (options: EventDeliveryOptions): this {
    this.#eventDelivery = eventDeliveryOptions(options)
    return this
  }

  /**
   * When a payment needs a look (its facets' attentionAt, which the sweeper and operator
   * searches use): pending this long (pendingAfterMs, default 15 min), or this long before its
   * authorization lapses (expiryWarningMs, default 24 h).
   */
  setAttention (options: AttentionOptions): this {
    this.#attention = attentionOptions(options)
    return this
  }

  /**
   * The origins the shop is reached at (https://shop.example), for checks such as where an
   * after URL may point. Default: the base URL's origin when it is a string, else none.
   * Never derived from a request.
   */
  setShopOrigins (origins: readonly string[] | (() => readonly string[])): this {
    this.#shopOrigins = typeof origins === 'function' ? origins : () => origins
    return this
  }

  /** Builds gateways in scopes of this container (the application's) instead of a new one. */
  setContainer (container: ServiceContainer | AwilixContainer): this {
    this.#container = container instanceof ServiceContainer ? container : ServiceContainer.of(container)
    return this
  }

  getPaywire (): Paywire {
    if (this.#tokenStorage === undefined) this.addDefaultStorages()
    const tokenStorage = this.#tokenStorage as TokenStorage
    const container = this.#container ?? ServiceContainer.create()
    const tokenFactory = new GenericTokenFactory(new TokenFactory(tokenStorage, this.#storages, this.#baseUrl), this.#paths)
    const httpRequestVerifier = new HttpRequestVerifier(tokenStorage)
    const baseUrl = this.#baseUrl
    const shopOrigins = this.#shopOrigins ?? (() => typeof baseUrl === 'string' ? [new URL(baseUrl).origin] : [])

    const defaultHttpClient = this.#globalServices.has(HttpClient) ? undefined : new UndiciHttpClient()
    // Every line Paywire writes goes through the redaction layer, to the request's own logger
    // while one is served (runWithHttpRequest), else to the logger given here.
    const logger = paywireLogger((this.#globalServices.get(Logger) ?? new NullLogger()) as Logger)
    const events = new PaywireEvents(logger, { ...this.#eventDelivery, outbox: this.#backend.outbox })
    // Gateways are built on first use, once the container below holds every service.
    const gateways = new GatewayRegistry({
      container,
      extensions: [new StorageExtension(this.#storages)],
      factoryDefaults: this.#factoryDefaults
    })
    const attention = this.#attention
    const readerOf = (name: string) => gateways.serviceOf(name, PaymentStateReader)
    // Payments saved directly (storage.update(): prepared, created by the shop) get their facets too.
    const payments = this.#storages.has(Payment) ? this.#storages.get(Payment) : undefined
    if (payments instanceof AbstractStorage) payments.facetsOf = (write) => facetsOfWrite(write, readerOf, attention)
    const executor = new ExclusiveExecutor({
      tokenStorage,
      backend: this.#backend,
      storages: this.#storages,
      logger,
      claimTtlMs: this.#claimTtlMs,
      events: {
        describe: (writes, gateway, facets) => describeWrites(writes, gateways.nameOf(gateway), readerOf, new Date(), { attention, facets }),
        committed: (stored) => {
          // Pushed, not map()ped: wake()'s optimized code then sees one array map whatever this code's tier.
          const partitions: string[] = []
          for (const record of stored) partitions.push(record.partition)
          events.wake(partitions)
        }
      }
    })
    let reported: IdempotencyStore | undefined
    const notifications = new NotificationReceiver({
      storages: this.#storages,
      executor,
      events,
      logger,
      reported: () => (reported ??= this.#backend.createIdempotencyStore?.('paywire.unmatched') ?? new MemoryIdempotencyStore())
    })
    container.set(Logger, logger)
    container.set(ExclusiveExecutor, executor)
    container.set(PaywireEvents, events)
    container.set(HttpClient, defaultHttpClient ?? this.#globalServices.get(HttpClient))
    container.set(TokenStorage, tokenStorage)
    container.set(StorageRegistry, this.#storages)
    container.set(GenericTokenFactory, tokenFactory)
    container.set(StorageBackend, this.#backend)
    for (const [id, service] of this.#globalServices) if (id !== Logger) container.set(id, service)

    gateways.addGatewayFactory('core', new CoreGatewayFactory())
    for (const [name, factory] of this.#factories) gateways.addGatewayFactory(name, factory)
    for (const [name, options] of this.#gateways) gateways.addGateway(name, options)

    return new Paywire({
      container,
      ownsContainer: this.#container === undefined,
      gateways,
      storages: this.#storages,
      backend: this.#backend,
      tokenStorage,
      tokenFactory,
      httpRequestVerifier,
      executor,
      notifications,
      events,
      shopOrigins,
      close: async () => { await defaultHttpClient?.close() }
    })
  }
}
