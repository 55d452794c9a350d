import { isAction } from '../kernel/actions/action.ts'
import { CoreGatewayFactory, isContainerGatewayFactory } from '../setup/core-gateway-factory.ts'
import { humanifyValue } from '../observability/humanify.ts'
import {
  deprecate, PAYWIREDEP001, PAYWIREDEP002, PAYWIREDEP003, PAYWIREDEP004, PAYWIREDEP005, PAYWIREDEP006
} from '../deprecations.ts'
import type { ServiceContainer } from '../di/service-container.ts'
import { PAYWIRE_ERR_INVALID_CONFIG_ENTRY } from '../errors.ts'
import { isExtension } from '../kernel/extensions/extension.ts'
import { Gateway } from '../kernel/gateway.ts'
import type { Details } from '../model/array-object.ts'
import { LegacyConfig } from './config.ts'
import { coreConfig, standaloneContainer } from './core-config.ts'
import './gateway-apis.ts'

/**
 * The 1.x gateway factory contract (deprecated): createConfig() gives the defaults, create()
 * the gateway. The registry still builds such factories, through create(config, container).
 */
export interface GatewayFactoryInterface {
  /** @deprecated (PAYWIREDEP003): use configureContainer(). */
  createConfig (config?: Details): Details
  /** @deprecated (PAYWIREDEP004): use createGateway(). `container`: the gateway's scope, given by the registry. */
  create (config?: Details, container?: ServiceContainer): Gateway
}

export function isLegacyGatewayFactory (value: unknown): value is GatewayFactoryInterface {
  const candidate = value as Partial<GatewayFactoryInterface> | null
  return typeof candidate?.create === 'function' && typeof candidate.createConfig === 'function' &&
    !isContainerGatewayFactory(value)
}

/**
 * The 1.x base class of gateway factories (deprecated, PAYWIREDEP001: extend CoreGatewayFactory).
 * A subclass overrides populateConfig() and fills the config with config.defaults(), so that
 * what the user gave always wins: user options > `defaultConfig` > core defaults > the
 * factory's own defaults. Actions, extensions and APIs are the paywire.action.*,
 * paywire.extension.* and paywire.api.* entries, added in key order.
 */
export class GatewayFactory implements GatewayFactoryInterface {
  readonly defaultConfig: Details
  readonly coreGatewayFactory: CoreGatewayFactory

  constructor (defaultConfig: Details = {}, coreGatewayFactory = new CoreGatewayFactory()) {
    deprecate(PAYWIREDEP001)
    this.defaultConfig = defaultConfig
    this.coreGatewayFactory = coreGatewayFactory
  }

  /** @deprecated (PAYWIREDEP003): use configureContainer(). The config with every default, closures unresolved. */
  createConfig (config: Details = {}): Details {
    deprecate(PAYWIREDEP003)
    return this.#populate(config, standaloneContainer()).toUnsafeArray()
  }

  /** @deprecated (PAYWIREDEP004): use createGateway(). */
  create (config: Details = {}, container: ServiceContainer = standaloneContainer()): Gateway {
    deprecate(PAYWIREDEP004)
    return buildGateway(this.#populate(config, container))
  }

  /** @deprecated (PAYWIREDEP002): use configureContainer(). */
  protected populateConfig (_config: LegacyConfig): void {}

  #populate (config: Details, container: ServiceContainer): LegacyConfig {
    const legacy = new LegacyConfig({ ...config })
      .defaults(this.defaultConfig)
      .defaults(coreConfig(this.coreGatewayFactory, container))
    if (this.populateConfig !== GatewayFactory.prototype.populateConfig) deprecate(PAYWIREDEP002)
    this.populateConfig(legacy)
    return legacy
  }
}

/**
 * What 1.x create() did with the config: check the required options (before any API is
 * built, so empty credentials fail here, naming the option), resolve the closures, then add
 * actions, APIs and extensions in key order, the keys of the prepend lists first.
 */
export function buildGateway (config: LegacyConfig): Gateway {
  config.validateNotEmpty(config.get<string[]>('paywire.required_options', []))
  config.resolveAll()
  const gateway = new Gateway()
  const actions = addEntries(config, 'paywire.action', 'paywire.prepend_actions', (action, prepend) => {
    if (!isAction(action)) return 'an action (supports, execute)'
    gateway.addAction(action, prepend)
  })
  const apis = addEntries(config, 'paywire.api', 'paywire.prepend_apis', (api, prepend) => {
    if (typeof api !== 'object' || api === null) return 'an API object'
    gateway.addApi(api, prepend)
  })
  const extensions = addEntries(config, 'paywire.extension', 'paywire.prepend_extensions', (extension, prepend) => {
    if (!isExtension(extension)) return 'an extension (onPreExecute, onExecute, onPostExecute)'
    gateway.addExtension(extension, prepend)
  })
  if (actions || extensions) deprecate(PAYWIREDEP005)
  if (apis) deprecate(PAYWIREDEP006)
  return gateway
}

/**
 * Adds the value of every `prefix` key; `add` returns what it expected when it refuses one.
 * True when the factory or the user (not only the engine) used these keys.
 */
function addEntries (config: LegacyConfig, prefix: string, prependKey: string,
  add: (value: unknown, prepend: boolean) => string | undefined): boolean {
  const prepend = config.get<unknown[]>(prependKey, [])
  let used = prepend.length > 0
  for (const key of Object.keys(config.data)) {
    if (key !== prefix && !key.startsWith(`${prefix}.`)) continue
    const value = config.get(key)
    const expected = add(value, prepend.includes(key))
    if (expected !== undefined) throw new PAYWIRE_ERR_INVALID_CONFIG_ENTRY(key, expected, humanifyValue(value))
    used ||= !config.isEngineEntry(key)
  }
  return used
}
